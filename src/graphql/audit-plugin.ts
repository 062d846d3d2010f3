import SchemaBuilder, {
  BasePlugin,
  type FieldNullability,
  type InputFieldMap,
  type InputShapeFromFields,
  type PothosOutputFieldConfig,
  type SchemaTypes,
  type ShapeFromTypeParam,
  type TypeParam,
} from "@pothos/core";
import type { GraphQLFieldResolver } from "graphql";
import { dropAuditIntent, openAuditIntent } from "../audit/intents.js";
import { actorOf, recordAudit } from "../audit/record.js";
import { type AuditTargetType, auditTargets } from "../audit/targets.js";
import type { GraphQLContext } from "./context.js";

/** How a mutation is recorded in the audit trail. */
export interface AuditSpec<Args, Result> {
  /** `<thing>.<verb>`, e.g. `channel.save`. */
  action: string;
  target: AuditTargetType;
  /**
   * The target's id: from the arguments, read before the change (null for a creation), and again with the
   * resolver's result after it (a created thing's id).
   */
  id: (args: Args, ctx: GraphQLContext, result?: Result) => string | null | undefined | Promise<string | null | undefined>;
  /** What else the record should say (counts of an import, the event redelivered…). */
  details?: (args: Args, result: Result) => unknown;
}

/** A mutation that changes nothing a tenant's reviewer audits (a customer conversation has its own transcript): say why. */
export interface AuditExempt {
  exempt: string;
}

export type AuditOption<Args, Result> = AuditSpec<Args, Result> | AuditExempt;

declare global {
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      audit: AuditPlugin<Types>;
    }
    interface MutationFieldOptions<
      Types extends SchemaTypes,
      Type extends TypeParam<Types>,
      Nullable extends FieldNullability<Type>,
      Args extends InputFieldMap,
      ResolveReturnShape,
    > {
      /** Every mutation says how it is audited; test/audit/coverage.test.ts fails on one that does not. */
      audit?: AuditOption<InputShapeFromFields<Args>, ShapeFromTypeParam<Types, Type, Nullable>>;
    }
  }
}

type AnySpec = AuditSpec<Record<string, unknown>, unknown>;

const optionOf = (config: PothosOutputFieldConfig<SchemaTypes>) =>
  (config.pothosOptions as { audit?: AuditOption<Record<string, unknown>, unknown> }).audit;

/**
 * Records every audited mutation in one place: the target as it was before (kept as an intent until the record is
 * written, src/audit/intents.ts), the resolver, the target as it is after, then the record, as the caller (key
 * prefix or user, role, address). A mutation that fails records nothing: it changed nothing. The option is copied to the field's extensions so that tests can list it.
 */
export class AuditPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const option = optionOf(fieldConfig as PothosOutputFieldConfig<SchemaTypes>);
    if (fieldConfig.kind !== "Mutation" || !option) return fieldConfig;
    const summary = "exempt" in option ? { exempt: option.exempt } : { action: option.action, target: option.target };
    return { ...fieldConfig, extensions: { ...fieldConfig.extensions, audit: summary } };
  }

  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types["Context"], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types["Context"], object> {
    const option = optionOf(fieldConfig as PothosOutputFieldConfig<SchemaTypes>);
    if (fieldConfig.kind !== "Mutation" || !option || "exempt" in option) return resolver;
    const spec = option as AnySpec;
    const snapshot = auditTargets[spec.target];
    return async (parent, args, context, info) => {
      const ctx = context as GraphQLContext;
      const principal = ctx.principal;
      if (!principal) return resolver(parent, args, context, info);
      const argValues = args as Record<string, unknown>;
      const idBefore = await spec.id(argValues, ctx);
      const before = idBefore ? await snapshot(ctx, idBefore) : null;
      const entry = {
        tenantId: principal.tenantId,
        actor: actorOf(principal),
        ip: ctx.clientIp,
        action: spec.action,
        target: { type: spec.target, id: idBefore ?? null },
        before,
      };
      const intent = await openAuditIntent(ctx.services, entry);
      let result: unknown;
      try {
        result = await resolver(parent, args, context, info);
      } catch (error) {
        await dropAuditIntent(ctx.services, intent);
        throw error;
      }
      const id = (await spec.id(argValues, ctx, result)) ?? idBefore ?? null;
      await recordAudit(
        ctx.services,
        {
          ...entry,
          target: { type: spec.target, id },
          after: id ? await snapshot(ctx, id) : null,
          details: spec.details?.(argValues, result) ?? null,
        },
        intent,
      );
      return result;
    };
  }
}

const pluginName = "audit";
SchemaBuilder.registerPlugin(pluginName, AuditPlugin);
export default pluginName;
