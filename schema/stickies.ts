// GraphQL surface of the stickies resource (spec/workspace-service.md).
export {};
