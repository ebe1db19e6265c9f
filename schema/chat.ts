// GraphQL surface of the chat resource (spec/workspace-service.md).
export {};
