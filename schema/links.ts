// GraphQL surface of the links resource (spec/workspace-service.md).
export {};
