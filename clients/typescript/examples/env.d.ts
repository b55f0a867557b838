// The one Node global the examples use (a project with @types/node has it already).
declare const process: { env: Record<string, string | undefined> };
