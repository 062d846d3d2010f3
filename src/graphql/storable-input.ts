import { GraphQLError, type ValidationRule } from "graphql";
import type { Plugin } from "graphql-yoga";
import { unstorableInput } from "../http/storable-text.js";

/**
 * A malformed GraphQL request is the caller's mistake: 400, with the spec's code. Not a `spec` error, which
 * yoga answers 200 to application/json callers.
 */
export const requestErrorHttp = { status: 400, spec: false };

/** String literals in the document (arguments, variable defaults) are input like any other. */
const storableLiterals: ValidationRule = (context) => ({
  StringValue(node) {
    const problem = unstorableInput(node.value, "literal");
    if (problem) context.reportError(new GraphQLError(`A string literal ${problem.message}`, { nodes: node }));
  },
});

/**
 * Refuses GraphQL input nothing can store, whatever the transport (GET, JSON, multipart): variables and
 * literals with a NUL, an unpaired surrogate or absurd nesting are 400 VALIDATION before anything runs.
 */
export const storableGraphQLInput: Plugin = {
  onParams({ params, setResult }) {
    const problem = unstorableInput(params.variables ?? null, "");
    if (!problem) return;
    const path = problem.path || "variables";
    setResult({
      errors: [
        new GraphQLError(`Invalid variables: ${path} ${problem.message}`, {
          extensions: { code: "VALIDATION", details: [{ path, message: problem.message }], http: requestErrorHttp },
        }),
      ],
    });
  },
  onValidate({ addValidationRule }) {
    addValidationRule(storableLiterals);
  },
};
