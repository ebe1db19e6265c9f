// GraphQL surface of the news resource (spec/workspace-service.md).
export {};
