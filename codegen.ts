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

// Typed documents for the REST shim, the tests and the dashboard, from the committed schema.graphql. The dashboard's
// are query strings (documentMode string): the browser sends them as they are, without graphql-js in its bundle.
const config: CodegenConfig = {
  schema: "schema.graphql",
  generates: {
    "src/rest/generated.ts": { documents: ["src/rest/operations/*.graphql"], ...typedDocuments },
    "test/generated.ts": { documents: ["test/operations/*.graphql"], ...typedDocuments },
    "dashboard/generated.ts": {
      documents: ["dashboard/operations/*.graphql"],
      ...typedDocuments,
      config: { ...typedDocuments.config, documentMode: "string" },
    },
  },
};

export default config;
