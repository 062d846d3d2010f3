import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  getOperationAST,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from "graphql";

// What one operation may cost the service, estimated from its document before it runs (README, GraphQL limits).
// Every field costs 1, or its weight below; a list multiplies what is selected inside it by its size: the field's
// page size (`limit`, `first` or `topK`, from the document or its variables, 20 when left out), or 10 for a list
// without one.

/** A page or list whose size argument is left out: the schema's default page size. */
export const defaultPageSize = 20;
/** A list the caller cannot size (an agent's teams, a conversation's timeline): a fair guess of its length. */
export const assumedListSize = 10;

const sizeArguments = ["limit", "first", "topK"];

/**
 * Fields that do real work besides reading rows, weighed so that one operation holds at most ten of the heaviest:
 * an answer from the AI engine or an evaluation run (many answers), a password hash (argon2, 19 MiB each), an
 * ingest, an embedding with a vector search, an aggregation over a tenant's history.
 */
const fieldWeights: Record<string, number> = {
  "Mutation.chat": 1000,
  "Subscription.chatStream": 1000,
  "Mutation.runEvaluation": 1000,
  "Mutation.login": 1000,
  "Mutation.createAgent": 1000,
  "Mutation.updateAgent": 1000,
  "Mutation.addKnowledgeSource": 500,
  "Mutation.uploadPdfSource": 500,
  "Mutation.sendChannelTestMessage": 100,
  "Mutation.importIntentExamples": 500,
  "Mutation.importEvaluationCases": 500,
  "Query.searchKnowledge": 100,
  "Query.classifyIntents": 100,
  "Query.analytics": 100,
};
/** Any other mutation writes: more than a read. */
const mutationWeight = 10;

function weightOf(parent: GraphQLNamedType, field: string): number {
  return fieldWeights[`${parent.name}.${field}`] ?? (parent.name === "Mutation" ? mutationWeight : 1);
}

/**
 * The page size a field asks for: its size argument as written or as a variable, the default page size when
 * left out, undefined for a field that takes no size.
 */
function requestedSize(field: FieldNode, definition: GraphQLField<unknown, unknown>, variables: Record<string, unknown>) {
  const sizeArgument = definition.args.find((a) => sizeArguments.includes(a.name));
  if (!sizeArgument) return undefined;
  const value = field.arguments?.find((a) => a.name.value === sizeArgument.name)?.value;
  const raw = value?.kind === Kind.VARIABLE ? variables[value.name.value] : value?.kind === Kind.INT ? Number(value.value) : null;
  return typeof raw === "number" && Number.isFinite(raw) ? Math.max(0, raw) : defaultPageSize;
}

/** The estimated cost of the operation the request runs (0 when the document names no such operation). */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> = {},
): number {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }

  // `pageSize` is the size asked of a page field (conversations(limit: 50)), handed to the list inside it (items).
  function selectionCost(set: SelectionSetNode, parent: GraphQLNamedType, pageSize: number | undefined): number {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        total += fieldCost(selection, parent, pageSize);
      } else {
        const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : selection;
        if (!fragment) continue;
        const condition = fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : parent;
        total += selectionCost(fragment.selectionSet, condition ?? parent, pageSize);
      }
    }
    return total;
  }

  function fieldCost(field: FieldNode, parent: GraphQLNamedType, pageSize: number | undefined): number {
    const name = field.name.value;
    // __typename and introspection: answered from the schema in memory.
    if (name.startsWith("__")) return 0;
    const definition = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
    if (!definition) return 0;
    const size = requestedSize(field, definition, variables);
    const list = isListType(getNullableType(definition.type));
    const inner = field.selectionSet
      ? selectionCost(field.selectionSet, getNamedType(definition.type), list ? undefined : size)
      : 0;
    return weightOf(parent, name) + (list ? (size ?? pageSize ?? assumedListSize) : 1) * inner;
  }

  return selectionCost(operation.selectionSet, root, undefined);
}
