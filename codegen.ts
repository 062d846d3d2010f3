import type { CodegenConfig } from "@graphql-codegen/cli";

const typedDocuments = {
  plugins: ["typescript-operations", "typed-document-node"],
  config: {
    useTypeImports: true,
    enumsAsTypes: true,
    avoidOptionals: { field: true, inputValue: false, object: false, defaultValue: false },
    scalars: { DateTime: "string", JSON: "unknown", ID: "string" },
  },
};

// Typed documents for the REST shim and for the tests, from the committed schema.graphql.
const config: CodegenConfig = {
  schema: "schema.graphql",
  generates: {
    "src/rest/generated.ts": { documents: ["src/rest/operations/*.graphql"], ...typedDocuments },
    "test/generated.ts": { documents: ["test/operations/*.graphql"], ...typedDocuments },
  },
};

export default config;
