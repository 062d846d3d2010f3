import { blockFieldSuggestionsPlugin } from "@escape.tech/graphql-armor-block-field-suggestions";
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { maxDirectivesPlugin } from "@escape.tech/graphql-armor-max-directives";
import { type ExecutionArgs, GraphQLError, Lexer, NoSchemaIntrospectionCustomRule, Source, TokenKind } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Config } from "../config.js";
import { operationCost } from "./cost.js";

type LimitSettings = Pick<
  Config,
  "GRAPHQL_MAX_TOKENS" | "GRAPHQL_MAX_DEPTH" | "GRAPHQL_MAX_ALIASES" | "GRAPHQL_MAX_DIRECTIVES" | "GRAPHQL_MAX_COST"
>;

export interface OperationLimits {
  tokens: number;
  depth: number;
  aliases: number;
  directives: number;
  cost: number;
}

/**
 * What one GraphQL operation may ask, checked before it runs (README, GraphQL limits): the operator's settings.
 * The service's own operations (src/rest/operations, test/operations) stay well inside the defaults: at most
 * depth 7, no aliases, no directives, about 400 tokens, and a cost of 5,605 for the heaviest
 * (ListEvaluationRuns at the largest page, 100).
 */
export function operationLimits(config: LimitSettings): OperationLimits {
  return {
    tokens: config.GRAPHQL_MAX_TOKENS,
    depth: config.GRAPHQL_MAX_DEPTH,
    aliases: config.GRAPHQL_MAX_ALIASES,
    directives: config.GRAPHQL_MAX_DIRECTIVES,
    cost: config.GRAPHQL_MAX_COST,
  };
}

/** A refused operation: the request is wrong, so 400 with the spec's VALIDATION code. */
function limitExceeded(message: string): GraphQLError {
  return new GraphQLError(message.replace(/^Syntax Error: /, ""), {
    extensions: { code: "VALIDATION", http: { status: 400 } },
  });
}

/** The document's tokens, counted no further than one past the limit; a syntax error is left for the parser. */
function tokensUpTo(document: string, limit: number): number {
  const lexer = new Lexer(new Source(document));
  let count = 0;
  try {
    while (count <= limit && lexer.advance().kind !== TokenKind.EOF) count++;
  } catch {
    // not a document at all: parsing says why
  }
  return count;
}

/**
 * Refuses a document of too many tokens before it is parsed (and before yoga would take a refusal in parsing for
 * a syntax error, answered 200 to a client that accepts application/json).
 */
function tokenLimit(limit: number): Plugin {
  return {
    onParams({ params }) {
      if (typeof params.query === "string" && tokensUpTo(params.query, limit) > limit) {
        throw limitExceeded(`Token limit of ${limit} exceeded.`);
      }
    },
  };
}

// The armor rules throw on the first excess, before graphql-js's own rules walk the oversized document.
const refuse = {
  exposeLimits: true,
  onReject: [
    (_context: unknown, error: GraphQLError) => {
      throw limitExceeded(error.message);
    },
  ],
};

/** Refuses an operation whose estimated cost (src/graphql/cost.ts) is over the limit; needs its variables. */
function costLimit(limit: number): Plugin {
  const checkCost = ({ args }: { args: ExecutionArgs }): void => {
    const cost = operationCost(args.schema, args.document, args.operationName, args.variableValues ?? {});
    if (cost > limit) throw limitExceeded(`Query cost limit of ${limit} exceeded, found ${cost}.`);
  };
  return { onExecute: checkCost, onSubscribe: checkCost };
}

/** Introspection answers outside production, and in production only when the operator turns it on. */
export function introspectionEnabled(config: Pick<Config, "NODE_ENV" | "GRAPHQL_INTROSPECTION">): boolean {
  return config.GRAPHQL_INTROSPECTION ?? config.NODE_ENV !== "production";
}

/** Without introspection the schema stays private: no introspection fields, no "Did you mean" hints either. */
const noIntrospection: Plugin[] = [
  {
    onValidate({ addValidationRule }) {
      addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  },
  blockFieldSuggestionsPlugin() as Plugin,
];

/** The yoga plugins that hold every operation to the operator's `operationLimits`. */
export function operationLimitPlugins(config: LimitSettings & Pick<Config, "NODE_ENV" | "GRAPHQL_INTROSPECTION">): Plugin[] {
  const limits = operationLimits(config);
  return [
    tokenLimit(limits.tokens),
    maxDepthPlugin({ n: limits.depth, ...refuse }) as Plugin,
    maxAliasesPlugin({ n: limits.aliases, ...refuse }) as Plugin,
    maxDirectivesPlugin({ n: limits.directives, ...refuse }) as Plugin,
    costLimit(limits.cost),
    ...(introspectionEnabled(config) ? [] : noIntrospection),
  ];
}
