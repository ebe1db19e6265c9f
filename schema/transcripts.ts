// GraphQL surface of the transcripts resource (spec/workspace-service.md).
export {};
