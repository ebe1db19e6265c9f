// GraphQL surface of the tasks resource (spec/workspace-service.md).
export {};
