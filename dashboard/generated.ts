/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type Availability =
  | 'away'
  | 'offline'
  | 'online';

export type BusinessHoursInput = {
  /** Days the team is away all day */
  holidays?: Array<HolidayInput> | null | undefined;
  /** IANA time zone, e.g. Europe/Zurich */
  timeZone: string;
  /** Opening intervals; a day may have several, none means closed that day */
  weekly: Array<OpeningIntervalInput>;
};

export type Channel =
  | 'api'
  | 'botmsg'
  | 'chatapp'
  | 'instagram'
  | 'messenger'
  | 'microblog'
  | 'sms'
  | 'teamchat'
  | 'ussd'
  | 'voice'
  | 'widget';

/** verified: a signed delivery proved the provider account; pending: only a delivery signed with the channel's credentials, which proves it, is routed here; not_required: a secret of the channel's own routes its requests */
export type ChannelVerificationStatus =
  | 'not_required'
  | 'pending'
  | 'verified';

export type ConversationStatus =
  | 'assigned'
  | 'closed'
  | 'escalated'
  | 'open'
  | 'resolved';

/** A customer: their id on one channel (channel and customerId), or their phone number on every channel */
export type CustomerIdentityInput = {
  /** widget, chatapp, sms, … */
  channel?: string | null | undefined;
  /** The customer's id on that channel (a conversation's customerId) */
  customerId?: string | null | undefined;
  /** A phone number (E.164): matches conversations on every channel */
  phone?: string | null | undefined;
};

export type EscalationPriority =
  | 'high'
  | 'low'
  | 'normal'
  | 'urgent';

export type EscalationReason =
  | 'customer_request'
  | 'engine_failure'
  | 'low_confidence'
  | 'manual'
  | 'urgent_intent';

export type EscalationStatus =
  | 'assigned'
  | 'open'
  | 'resolved';

export type Granularity =
  | 'day'
  | 'week';

export type HolidayInput = {
  /** YYYY-MM-DD */
  date: string;
  name?: string | null | undefined;
};

export type InboxEventType =
  | 'assigned'
  | 'escalated'
  | 'message'
  | 'resolved'
  | 'unassigned'
  | 'updated';

export type IntentExampleInput = {
  intent: string;
  text: string;
};

export type JitRole =
  | 'admin'
  | 'agent'
  | 'viewer';

export type OpeningIntervalInput = {
  /** HH:MM after open, up to 24:00 */
  close: string;
  day: Weekday;
  /** HH:MM */
  open: string;
};

export type RetentionPeriodsInput = {
  /** Audit records, oldest first; the trail then verifies from an anchor. At least 365 days; null or omitted: for ever */
  auditRecords?: number | null | undefined;
  /** Event notifications sent to the tenant's endpoints, with their delivery logs. At least 7 days; null or omitted: for ever */
  deliveryLogs?: number | null | undefined;
  /** Customers' phone numbers, channel ids and names kept on conversations, by last activity. At least 1 days; null or omitted: for ever */
  identities?: number | null | undefined;
  /** Uploaded knowledge files (PDFs), by last sync; their indexed text stays. At least 1 days; null or omitted: for ever */
  knowledgeFiles?: number | null | undefined;
  /** Conversation transcripts (messages, their sources, ratings, escalations, timeline), by last activity. At least 1 days; null or omitted: for ever */
  messages?: number | null | undefined;
};

export type Role =
  | 'admin'
  | 'agent'
  | 'owner'
  | 'viewer';

export type Weekday =
  | 'friday'
  | 'monday'
  | 'saturday'
  | 'sunday'
  | 'thursday'
  | 'tuesday'
  | 'wednesday';

export type MfaStatusQueryVariables = Exact<{ [key: string]: never; }>;


export type MfaStatusQuery = { mfaStatus: { enabled: boolean, tenantRequires: boolean, enrolmentRequired: boolean, recoveryCodesLeft: number } };

export type MySessionsQueryVariables = Exact<{ [key: string]: never; }>;


export type MySessionsQuery = { sessions: Array<{ id: string, method: string, createdAt: string, lastUsedAt: string | null, expiresAt: string, ipAddress: string | null, userAgent: string | null, current: boolean }> };

export type EnrolMfaMutationVariables = Exact<{ [key: string]: never; }>;


export type EnrolMfaMutation = { enrolMfa: { secret: string, otpauthUri: string, qrSvg: string } };

export type ConfirmMfaMutationVariables = Exact<{
  code: string;
}>;


export type ConfirmMfaMutation = { confirmMfa: Array<string> };

export type DisableMfaMutationVariables = Exact<{
  code: string;
}>;


export type DisableMfaMutation = { disableMfa: boolean };

export type RenewRecoveryCodesMutationVariables = Exact<{
  code: string;
}>;


export type RenewRecoveryCodesMutation = { renewRecoveryCodes: Array<string> };

export type RevokeSessionMutationVariables = Exact<{
  id: string;
}>;


export type RevokeSessionMutation = { revokeSession: boolean };

export type RevokeOtherSessionsMutationVariables = Exact<{ [key: string]: never; }>;


export type RevokeOtherSessionsMutation = { revokeSessions: number };

export type AgentsPageQueryVariables = Exact<{
  active?: boolean | null | undefined;
}>;


export type AgentsPageQuery = { agents: { total: number, items: Array<{ id: string, name: string, email: string, role: Role, availability: Availability, maxConcurrent: number, openConversations: number, active: boolean, teams: Array<{ id: string, name: string }> }> }, teams: Array<{ id: string, name: string, intents: Array<string>, members: Array<{ id: string, name: string }> }> };

export type CreateAgentMutationVariables = Exact<{
  name: string;
  email: string;
  role?: Role | null | undefined;
  password?: string | null | undefined;
  maxConcurrent?: number | null | undefined;
  teamIds?: Array<string> | string | null | undefined;
}>;


export type CreateAgentMutation = { createAgent: { id: string } };

export type UpdateAgentMutationVariables = Exact<{
  id: string;
  role?: Role | null | undefined;
  availability?: Availability | null | undefined;
  maxConcurrent?: number | null | undefined;
  active?: boolean | null | undefined;
  teamIds?: Array<string> | string | null | undefined;
}>;


export type UpdateAgentMutation = { updateAgent: { id: string } };

export type CreateTeamMutationVariables = Exact<{
  name: string;
  intents?: Array<string> | string | null | undefined;
  memberIds?: Array<string> | string | null | undefined;
}>;


export type CreateTeamMutation = { createTeam: { id: string } };

export type UpdateTeamMutationVariables = Exact<{
  id: string;
  name?: string | null | undefined;
  intents?: Array<string> | string | null | undefined;
  memberIds?: Array<string> | string | null | undefined;
}>;


export type UpdateTeamMutation = { updateTeam: { id: string } };

export type DeleteTeamMutationVariables = Exact<{
  id: string;
}>;


export type DeleteTeamMutation = { deleteTeam: { deleted: string } };

export type AnalyticsPageQueryVariables = Exact<{
  from?: string | null | undefined;
  to?: string | null | undefined;
  channel?: Channel | null | undefined;
  granularity?: Granularity | null | undefined;
}>;


export type AnalyticsPageQuery = { analytics: { from: string, to: string, channel: string | null, granularity: Granularity, aiResolved: number, aiResolutionRate: number | null, escalated: number, escalationRate: number | null, tokensUsed: number, conversations: { total: number, byChannel: Array<{ key: string, count: number }> }, messages: { total: number, customer: number, ai: number, agent: number }, escalations: { total: number, outOfHours: number, byReason: Array<{ key: string, count: number }> }, firstResponseTime: { count: number, medianSeconds: number | null, p90Seconds: number | null }, resolutionTime: { count: number, medianSeconds: number | null, p90Seconds: number | null }, topIntents: Array<{ key: string, count: number }>, knowledgeCoverage: { answers: number, grounded: number, rate: number | null }, listedQuestions: { offered: number, chosen: number, rate: number | null }, unansweredQuestions: Array<{ question: string, count: number, lastAskedAt: string }>, feedback: { up: number, down: number, rate: number | null, satisfaction: { asked: number, answered: number, average: number | null }, byChannel: Array<{ channel: string, up: number, down: number, rate: number | null, satisfaction: { asked: number, answered: number, average: number | null } }> }, series: Array<{ start: string, conversations: number, escalations: number, conversationsByChannel: Array<{ key: string, count: number }> }> } };

export type ChannelsPageQueryVariables = Exact<{ [key: string]: never; }>;


export type ChannelsPageQuery = { channels: Array<{ id: string, type: Channel, name: string, enabled: boolean, routingKey: string, webhookUrl: string | null, credentials: unknown, settings: unknown, verification: { status: ChannelVerificationStatus, instructions: string } }>, voices: Array<{ id: string, name: string, language: string, speakingRate: number, greeting: string | null, selected: boolean }> };

export type ChannelRowFragment = { id: string, type: Channel, name: string, enabled: boolean, routingKey: string, webhookUrl: string | null, credentials: unknown, settings: unknown, verification: { status: ChannelVerificationStatus, instructions: string } };

export type SaveChannelMutationVariables = Exact<{
  ref: string;
  name?: string | null | undefined;
  enabled?: boolean | null | undefined;
  credentials?: unknown;
  settings?: unknown;
}>;


export type SaveChannelMutation = { saveChannel: { created: boolean, channel: { id: string, type: Channel, name: string, enabled: boolean, routingKey: string, webhookUrl: string | null, credentials: unknown, settings: unknown, verification: { status: ChannelVerificationStatus, instructions: string } } } };

export type DeleteChannelMutationVariables = Exact<{
  id: string;
}>;


export type DeleteChannelMutation = { deleteChannel: string };

export type SendTestMessageMutationVariables = Exact<{
  ref: string;
  to: string;
  text?: string | null | undefined;
}>;


export type SendTestMessageMutation = { sendChannelTestMessage: { providerMessageId: string | null } };

export type SaveVoiceMutationVariables = Exact<{
  id?: string | null | undefined;
  name?: string | null | undefined;
  language?: string | null | undefined;
  speakingRate?: number | null | undefined;
  greeting?: string | null | undefined;
  selected?: boolean | null | undefined;
}>;


export type SaveVoiceMutation = { saveVoice: { id: string } };

export type DeleteVoiceMutationVariables = Exact<{
  id: string;
}>;


export type DeleteVoiceMutation = { deleteVoice: string };

export type RetentionQueryVariables = Exact<{ [key: string]: never; }>;


export type RetentionQuery = { tenant: { id: string, retention: { messages: number | null, identities: number | null, auditRecords: number | null, knowledgeFiles: number | null, deliveryLogs: number | null } } };

export type SetRetentionMutationVariables = Exact<{
  periods: RetentionPeriodsInput;
}>;


export type SetRetentionMutation = { setRetention: { id: string } };

export type RunRetentionMutationVariables = Exact<{ [key: string]: never; }>;


export type RunRetentionMutation = { runRetention: string };

export type LegalHoldsQueryVariables = Exact<{ [key: string]: never; }>;


export type LegalHoldsQuery = { legalHolds: Array<{ id: string, conversationId: string | null, reason: string, placedBy: string, placedByLabel: string | null, createdAt: string, active: boolean, releasedAt: string | null, releasedBy: string | null, releaseReason: string | null, customer: { channel: string | null, customerId: string | null, phone: string | null } | null }> };

export type PlaceLegalHoldMutationVariables = Exact<{
  conversationId?: string | null | undefined;
  customer?: CustomerIdentityInput | null | undefined;
  reason: string;
}>;


export type PlaceLegalHoldMutation = { placeLegalHold: { id: string } };

export type ReleaseLegalHoldMutationVariables = Exact<{
  id: string;
  reason: string;
}>;


export type ReleaseLegalHoldMutation = { releaseLegalHold: { id: string } };

export type EraseCustomerMutationVariables = Exact<{
  customer: CustomerIdentityInput;
}>;


export type EraseCustomerMutation = { eraseCustomer: { subject: string, erased: { conversations: number, messages: number, feedback: number, surveys: number, escalations: number, timelineEvents: number, webhookEvents: number, jobs: number }, heldBack: Array<{ conversationId: string, holdId: string, reason: string }> } };

export type EscalationQueueQueryVariables = Exact<{
  status?: EscalationStatus | null | undefined;
  priority?: EscalationPriority | null | undefined;
  mine?: boolean | null | undefined;
  teamId?: string | null | undefined;
  page?: number | null | undefined;
  limit?: number | null | undefined;
}>;


export type EscalationQueueQuery = { escalations: { total: number, page: number, limit: number, items: Array<{ id: string, reason: EscalationReason, priority: EscalationPriority, status: EscalationStatus, note: string | null, createdAt: string, resolvedAt: string | null, team: { id: string, name: string } | null, assignee: { id: string, name: string } | null, conversation: { id: string, channel: Channel, customerName: string | null, customerPhone: string | null, customerId: string | null } }> } };

export type InboxListQueryVariables = Exact<{
  page?: number | null | undefined;
  limit?: number | null | undefined;
  mine?: boolean | null | undefined;
  unassigned?: boolean | null | undefined;
  status?: ConversationStatus | null | undefined;
  channel?: Channel | null | undefined;
  intent?: string | null | undefined;
  q?: string | null | undefined;
  from?: string | null | undefined;
  to?: string | null | undefined;
}>;


export type InboxListQuery = { conversations: { total: number, items: Array<{ id: string, channel: Channel, status: ConversationStatus, customerName: string | null, customerPhone: string | null, customerId: string | null, updatedAt: string, messageCount: number, lastMessage: { role: string, content: string } | null, openEscalation: { id: string, reason: EscalationReason, priority: EscalationPriority, assignee: { id: string, name: string } | null } | null }> } };

export type ConversationSummaryFragment = { id: string, channel: Channel, status: ConversationStatus, customerName: string | null, customerPhone: string | null, customerId: string | null, updatedAt: string, messageCount: number, lastMessage: { role: string, content: string } | null, openEscalation: { id: string, reason: EscalationReason, priority: EscalationPriority, assignee: { id: string, name: string } | null } | null };

export type ConversationViewQueryVariables = Exact<{
  id: string;
}>;


export type ConversationViewQuery = { conversation: { id: string, channel: Channel, status: ConversationStatus, customerName: string | null, customerPhone: string | null, customerId: string | null, createdAt: string, updatedAt: string, messageCount: number, openEscalation: { id: string, reason: EscalationReason, priority: EscalationPriority, status: EscalationStatus, note: string | null, createdAt: string, createdBy: string, team: { id: string, name: string } | null, assignee: { id: string, name: string } | null } | null, timeline: Array<{ id: string, type: string, fromStatus: string | null, toStatus: string | null, actor: string, reason: string | null, createdAt: string }> } };

export type TranscriptQueryVariables = Exact<{
  conversationId: string;
  page?: number | null | undefined;
  limit?: number | null | undefined;
}>;


export type TranscriptQuery = { conversationMessages: { total: number, items: Array<{ id: string, role: string, content: string, metadata: unknown, createdAt: string, delivery: { status: string, attempts: number, error: string | null } | null }> } };

export type TranscriptMessageFragment = { id: string, role: string, content: string, metadata: unknown, createdAt: string, delivery: { status: string, attempts: number, error: string | null } | null };

export type CustomerConversationsQueryVariables = Exact<{
  customerId: string;
  channel?: Channel | null | undefined;
}>;


export type CustomerConversationsQuery = { conversations: { total: number, items: Array<{ id: string, status: ConversationStatus, createdAt: string, messageCount: number }> } };

export type AssignTargetsQueryVariables = Exact<{ [key: string]: never; }>;


export type AssignTargetsQuery = { agents: { items: Array<{ id: string, name: string, role: Role, availability: Availability }> }, teams: Array<{ id: string, name: string }> };

export type ConversationActivitySubscriptionVariables = Exact<{
  conversationId?: string | null | undefined;
}>;


export type ConversationActivitySubscription = { conversationActivity: { type: InboxEventType, conversationId: string, message: { id: string, role: string, content: string, metadata: unknown, createdAt: string, delivery: { status: string, attempts: number, error: string | null } | null } | null } };

export type ReplyMutationVariables = Exact<{
  conversationId: string;
  content: string;
}>;


export type ReplyMutation = { replyToConversation: { id: string, role: string, content: string, metadata: unknown, createdAt: string, delivery: { status: string, attempts: number, error: string | null } | null } };

export type AddNoteMutationVariables = Exact<{
  conversationId: string;
  content: string;
}>;


export type AddNoteMutation = { addNote: { id: string, role: string, content: string, metadata: unknown, createdAt: string, delivery: { status: string, attempts: number, error: string | null } | null } };

export type EscalateMutationVariables = Exact<{
  conversationId: string;
  note?: string | null | undefined;
}>;


export type EscalateMutation = { createEscalation: { id: string } };

export type WorkEscalationMutationVariables = Exact<{
  id: string;
  assigneeId?: string | null | undefined;
  teamId?: string | null | undefined;
  status?: EscalationStatus | null | undefined;
  priority?: EscalationPriority | null | undefined;
}>;


export type WorkEscalationMutation = { updateEscalation: { id: string, status: EscalationStatus } };

export type IntentsPageQueryVariables = Exact<{ [key: string]: never; }>;


export type IntentsPageQuery = { intents: Array<{ id: string, name: string, description: string | null, agentType: string, urgent: boolean, examples: Array<string>, updatedAt: string }> };

export type CreateIntentMutationVariables = Exact<{
  name: string;
  agentType?: string | null | undefined;
  urgent?: boolean | null | undefined;
  examples?: Array<string> | string | null | undefined;
}>;


export type CreateIntentMutation = { createIntent: { id: string } };

export type UpdateIntentMutationVariables = Exact<{
  id: string;
  agentType?: string | null | undefined;
  urgent?: boolean | null | undefined;
  examples?: Array<string> | string | null | undefined;
}>;


export type UpdateIntentMutation = { updateIntent: { id: string } };

export type DeleteIntentMutationVariables = Exact<{
  id: string;
}>;


export type DeleteIntentMutation = { deleteIntent: { deleted: string } };

export type ImportIntentExamplesMutationVariables = Exact<{
  examples: Array<IntentExampleInput> | IntentExampleInput;
  replace?: boolean | null | undefined;
}>;


export type ImportIntentExamplesMutation = { importIntentExamples: { created: number, examples: number, intents: number } };

export type ClassifyIntentsQueryVariables = Exact<{
  texts: Array<string> | string;
}>;


export type ClassifyIntentsQuery = { classifyIntents: Array<{ intent: string, confidence: number }> };

export type KnowledgePageQueryVariables = Exact<{ [key: string]: never; }>;


export type KnowledgePageQuery = { knowledgeSummary: { sources: number, chunks: number, tokens: number, lastSyncedAt: string | null }, knowledgeSources: Array<{ id: string, type: string, title: string, sourceUrl: string | null, fileName: string | null, status: string, error: string | null, pages: number, chunks: number, tokens: number, lastSyncedAt: string | null, createdAt: string, progress: { discovered: number, done: number, maxPages: number } | null }> };

export type SourceRowFragment = { id: string, type: string, title: string, sourceUrl: string | null, fileName: string | null, status: string, error: string | null, pages: number, chunks: number, tokens: number, lastSyncedAt: string | null, createdAt: string, progress: { discovered: number, done: number, maxPages: number } | null };

export type UnansweredQuestionsQueryVariables = Exact<{ [key: string]: never; }>;


export type UnansweredQuestionsQuery = { analytics: { unansweredQuestions: Array<{ question: string, count: number, lastAskedAt: string, conversationId: string }> } };

export type AddSourceMutationVariables = Exact<{
  type: string;
  sourceUrl?: string | null | undefined;
  title?: string | null | undefined;
  content?: string | null | undefined;
}>;


export type AddSourceMutation = { addKnowledgeSource: { id: string, type: string, title: string, sourceUrl: string | null, fileName: string | null, status: string, error: string | null, pages: number, chunks: number, tokens: number, lastSyncedAt: string | null, createdAt: string, progress: { discovered: number, done: number, maxPages: number } | null } };

export type UploadPdfMutationVariables = Exact<{
  file: unknown;
  title?: string | null | undefined;
}>;


export type UploadPdfMutation = { uploadPdfSource: { id: string, type: string, title: string, sourceUrl: string | null, fileName: string | null, status: string, error: string | null, pages: number, chunks: number, tokens: number, lastSyncedAt: string | null, createdAt: string, progress: { discovered: number, done: number, maxPages: number } | null } };

export type ResyncSourceMutationVariables = Exact<{
  id: string;
}>;


export type ResyncSourceMutation = { syncKnowledgeSource: { id: string, type: string, title: string, sourceUrl: string | null, fileName: string | null, status: string, error: string | null, pages: number, chunks: number, tokens: number, lastSyncedAt: string | null, createdAt: string, progress: { discovered: number, done: number, maxPages: number } | null } };

export type DeleteSourceMutationVariables = Exact<{
  id: string;
}>;


export type DeleteSourceMutation = { deleteKnowledgeSource: { deleted: string, chunks: number } };

export type SearchKnowledgeQueryVariables = Exact<{
  query: string;
  topK?: number | null | undefined;
}>;


export type SearchKnowledgeQuery = { searchKnowledge: Array<{ chunkId: string, sourceId: string, sourceTitle: string, title: string | null, url: string | null, page: number | null, score: number, similarity: number, text: string }> };

export type KnowledgeSourceChangedSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type KnowledgeSourceChangedSubscription = { knowledgeSourceChanged: { id: string } | null };

export type LoginMutationVariables = Exact<{
  email: string;
  password: string;
  tenantId?: string | null | undefined;
}>;


export type LoginMutation = { login: { token: string | null, expiresAt: string | null, mfaEnrolmentRequired: boolean, agent: { id: string, name: string, email: string, role: Role, availability: Availability } | null, mfaChallenge: { challengeToken: string } | null } };

export type ExchangeLoginCodeMutationVariables = Exact<{
  code: string;
}>;


export type ExchangeLoginCodeMutation = { exchangeLoginCode: { token: string | null, expiresAt: string | null, mfaEnrolmentRequired: boolean, agent: { id: string, name: string, email: string, role: Role, availability: Availability } | null, mfaChallenge: { challengeToken: string } | null } };

export type SignInStepFragment = { token: string | null, expiresAt: string | null, mfaEnrolmentRequired: boolean, agent: { id: string, name: string, email: string, role: Role, availability: Availability } | null, mfaChallenge: { challengeToken: string } | null };

export type SignInProviderQueryVariables = Exact<{
  tenantId: string;
}>;


export type SignInProviderQuery = { signInProvider: { name: string, signInPath: string } | null };

export type CompleteMfaLoginMutationVariables = Exact<{
  challengeToken: string;
  code: string;
}>;


export type CompleteMfaLoginMutation = { verifyMfaLogin: { token: string, expiresAt: string, agent: { id: string, name: string, email: string, role: Role, availability: Availability } } };

export type LogoutMutationVariables = Exact<{ [key: string]: never; }>;


export type LogoutMutation = { logout: boolean };

export type CurrentUserQueryVariables = Exact<{ [key: string]: never; }>;


export type CurrentUserQuery = { me: { id: string, name: string, email: string, role: Role, availability: Availability } | null, tenant: { id: string, name: string } };

export type SetAvailabilityMutationVariables = Exact<{
  id: string;
  availability: Availability;
}>;


export type SetAvailabilityMutation = { updateAgent: { id: string, name: string, email: string, role: Role, availability: Availability } };

export type MeFragment = { id: string, name: string, email: string, role: Role, availability: Availability };

export type SettingsPageQueryVariables = Exact<{ [key: string]: never; }>;


export type SettingsPageQuery = { tenant: { id: string, name: string, settings: unknown, aiDisclosure: string | null, rateLimit: { max: number, windowS: number }, businessHours: { timeZone: string, openNow: boolean, nextOpeningAt: string | null, weekly: Array<{ day: Weekday, open: string, close: string }>, holidays: Array<{ date: string, name: string | null }> } | null }, channels: Array<{ id: string, type: Channel, name: string, enabled: boolean, settings: unknown }> };

export type ApiKeysQueryVariables = Exact<{ [key: string]: never; }>;


export type ApiKeysQuery = { apiKeys: Array<{ id: string, name: string, prefix: string, role: string, createdAt: string, lastUsedAt: string | null, revokedAt: string | null }> };

export type UpdateTenantMutationVariables = Exact<{
  name?: string | null | undefined;
  persona?: string | null | undefined;
  piiRedaction?: boolean | null | undefined;
  rateLimitMax?: number | null | undefined;
  rateLimitWindowS?: number | null | undefined;
  lowConfidenceEscalateAfter?: number | null | undefined;
}>;


export type UpdateTenantMutation = { updateTenant: { id: string } };

export type CreateApiKeyMutationVariables = Exact<{
  name: string;
  role?: Role | null | undefined;
}>;


export type CreateApiKeyMutation = { createApiKey: { key: string, apiKey: { id: string } } };

export type RevokeApiKeyMutationVariables = Exact<{
  id: string;
}>;


export type RevokeApiKeyMutation = { revokeApiKey: { id: string } };

export type CreateWidgetTokenMutationVariables = Exact<{
  ref?: string | null | undefined;
}>;


export type CreateWidgetTokenMutation = { createWidgetToken: { token: string, embedSnippet: string } };

export type RequireMfaMutationVariables = Exact<{
  requireMfa: boolean;
}>;


export type RequireMfaMutation = { updateTenant: { id: string } };

export type UpdateDisclosureMutationVariables = Exact<{
  aiDisclosure?: string | null | undefined;
  aiDisclosureEnabled?: boolean | null | undefined;
  assistantName?: string | null | undefined;
}>;


export type UpdateDisclosureMutation = { updateTenant: { id: string } };

export type SetBusinessHoursMutationVariables = Exact<{
  hours?: BusinessHoursInput | null | undefined;
}>;


export type SetBusinessHoursMutation = { setBusinessHours: { id: string } };

export type OidcSettingsQueryVariables = Exact<{ [key: string]: never; }>;


export type OidcSettingsQuery = { oidcConfig: { issuer: string, clientId: string, clientSecret: string, allowedDomains: Array<string>, emailClaim: string, jitRole: JitRole | null, enabled: boolean, redirectUri: string, signInUrl: string } | null };

export type SaveOidcSettingsMutationVariables = Exact<{
  issuer: string;
  clientId: string;
  clientSecret?: string | null | undefined;
  allowedDomains?: Array<string> | string | null | undefined;
  emailClaim?: string | null | undefined;
  jitRole?: JitRole | null | undefined;
  enabled?: boolean | null | undefined;
}>;


export type SaveOidcSettingsMutation = { saveOidcConfig: { issuer: string } };

export type DeleteOidcSettingsMutationVariables = Exact<{ [key: string]: never; }>;


export type DeleteOidcSettingsMutation = { deleteOidcConfig: boolean };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const ChannelRowFragmentDoc = new TypedDocumentString(`
    fragment ChannelRow on ChannelConfig {
  id
  type
  name
  enabled
  routingKey
  webhookUrl
  credentials
  settings
  verification {
    status
    instructions
  }
}
    `, {"fragmentName":"ChannelRow"}) as unknown as TypedDocumentString<ChannelRowFragment, unknown>;
export const ConversationSummaryFragmentDoc = new TypedDocumentString(`
    fragment ConversationSummary on Conversation {
  id
  channel
  status
  customerName
  customerPhone
  customerId
  updatedAt
  messageCount
  lastMessage {
    role
    content
  }
  openEscalation {
    id
    reason
    priority
    assignee {
      id
      name
    }
  }
}
    `, {"fragmentName":"ConversationSummary"}) as unknown as TypedDocumentString<ConversationSummaryFragment, unknown>;
export const TranscriptMessageFragmentDoc = new TypedDocumentString(`
    fragment TranscriptMessage on Message {
  id
  role
  content
  metadata
  createdAt
  delivery {
    status
    attempts
    error
  }
}
    `, {"fragmentName":"TranscriptMessage"}) as unknown as TypedDocumentString<TranscriptMessageFragment, unknown>;
export const SourceRowFragmentDoc = new TypedDocumentString(`
    fragment SourceRow on KnowledgeSource {
  id
  type
  title
  sourceUrl
  fileName
  status
  error
  pages
  chunks
  tokens
  lastSyncedAt
  createdAt
  progress {
    discovered
    done
    maxPages
  }
}
    `, {"fragmentName":"SourceRow"}) as unknown as TypedDocumentString<SourceRowFragment, unknown>;
export const MeFragmentDoc = new TypedDocumentString(`
    fragment Me on Agent {
  id
  name
  email
  role
  availability
}
    `, {"fragmentName":"Me"}) as unknown as TypedDocumentString<MeFragment, unknown>;
export const SignInStepFragmentDoc = new TypedDocumentString(`
    fragment SignInStep on Login {
  token
  expiresAt
  agent {
    ...Me
  }
  mfaChallenge {
    challengeToken
  }
  mfaEnrolmentRequired
}
    fragment Me on Agent {
  id
  name
  email
  role
  availability
}`, {"fragmentName":"SignInStep"}) as unknown as TypedDocumentString<SignInStepFragment, unknown>;
export const MfaStatusDocument = new TypedDocumentString(`
    query MfaStatus {
  mfaStatus {
    enabled
    tenantRequires
    enrolmentRequired
    recoveryCodesLeft
  }
}
    `) as unknown as TypedDocumentString<MfaStatusQuery, MfaStatusQueryVariables>;
export const MySessionsDocument = new TypedDocumentString(`
    query MySessions {
  sessions {
    id
    method
    createdAt
    lastUsedAt
    expiresAt
    ipAddress
    userAgent
    current
  }
}
    `) as unknown as TypedDocumentString<MySessionsQuery, MySessionsQueryVariables>;
export const EnrolMfaDocument = new TypedDocumentString(`
    mutation EnrolMfa {
  enrolMfa {
    secret
    otpauthUri
    qrSvg
  }
}
    `) as unknown as TypedDocumentString<EnrolMfaMutation, EnrolMfaMutationVariables>;
export const ConfirmMfaDocument = new TypedDocumentString(`
    mutation ConfirmMfa($code: String!) {
  confirmMfa(code: $code)
}
    `) as unknown as TypedDocumentString<ConfirmMfaMutation, ConfirmMfaMutationVariables>;
export const DisableMfaDocument = new TypedDocumentString(`
    mutation DisableMfa($code: String!) {
  disableMfa(code: $code)
}
    `) as unknown as TypedDocumentString<DisableMfaMutation, DisableMfaMutationVariables>;
export const RenewRecoveryCodesDocument = new TypedDocumentString(`
    mutation RenewRecoveryCodes($code: String!) {
  renewRecoveryCodes(code: $code)
}
    `) as unknown as TypedDocumentString<RenewRecoveryCodesMutation, RenewRecoveryCodesMutationVariables>;
export const RevokeSessionDocument = new TypedDocumentString(`
    mutation RevokeSession($id: ID!) {
  revokeSession(id: $id)
}
    `) as unknown as TypedDocumentString<RevokeSessionMutation, RevokeSessionMutationVariables>;
export const RevokeOtherSessionsDocument = new TypedDocumentString(`
    mutation RevokeOtherSessions {
  revokeSessions
}
    `) as unknown as TypedDocumentString<RevokeOtherSessionsMutation, RevokeOtherSessionsMutationVariables>;
export const AgentsPageDocument = new TypedDocumentString(`
    query AgentsPage($active: Boolean) {
  agents(limit: 100, active: $active) {
    total
    items {
      id
      name
      email
      role
      availability
      maxConcurrent
      openConversations
      active
      teams {
        id
        name
      }
    }
  }
  teams {
    id
    name
    intents
    members {
      id
      name
    }
  }
}
    `) as unknown as TypedDocumentString<AgentsPageQuery, AgentsPageQueryVariables>;
export const CreateAgentDocument = new TypedDocumentString(`
    mutation CreateAgent($name: String!, $email: String!, $role: Role, $password: String, $maxConcurrent: Int, $teamIds: [ID!]) {
  createAgent(
    name: $name
    email: $email
    role: $role
    password: $password
    maxConcurrent: $maxConcurrent
    teamIds: $teamIds
  ) {
    id
  }
}
    `) as unknown as TypedDocumentString<CreateAgentMutation, CreateAgentMutationVariables>;
export const UpdateAgentDocument = new TypedDocumentString(`
    mutation UpdateAgent($id: ID!, $role: Role, $availability: Availability, $maxConcurrent: Int, $active: Boolean, $teamIds: [ID!]) {
  updateAgent(
    id: $id
    role: $role
    availability: $availability
    maxConcurrent: $maxConcurrent
    active: $active
    teamIds: $teamIds
  ) {
    id
  }
}
    `) as unknown as TypedDocumentString<UpdateAgentMutation, UpdateAgentMutationVariables>;
export const CreateTeamDocument = new TypedDocumentString(`
    mutation CreateTeam($name: String!, $intents: [String!], $memberIds: [ID!]) {
  createTeam(name: $name, intents: $intents, memberIds: $memberIds) {
    id
  }
}
    `) as unknown as TypedDocumentString<CreateTeamMutation, CreateTeamMutationVariables>;
export const UpdateTeamDocument = new TypedDocumentString(`
    mutation UpdateTeam($id: ID!, $name: String, $intents: [String!], $memberIds: [ID!]) {
  updateTeam(id: $id, name: $name, intents: $intents, memberIds: $memberIds) {
    id
  }
}
    `) as unknown as TypedDocumentString<UpdateTeamMutation, UpdateTeamMutationVariables>;
export const DeleteTeamDocument = new TypedDocumentString(`
    mutation DeleteTeam($id: ID!) {
  deleteTeam(id: $id) {
    deleted
  }
}
    `) as unknown as TypedDocumentString<DeleteTeamMutation, DeleteTeamMutationVariables>;
export const AnalyticsPageDocument = new TypedDocumentString(`
    query AnalyticsPage($from: DateTime, $to: DateTime, $channel: Channel, $granularity: Granularity) {
  analytics(from: $from, to: $to, channel: $channel, granularity: $granularity) {
    from
    to
    channel
    granularity
    conversations {
      total
      byChannel {
        key
        count
      }
    }
    messages {
      total
      customer
      ai
      agent
    }
    aiResolved
    aiResolutionRate
    escalated
    escalationRate
    escalations {
      total
      outOfHours
      byReason {
        key
        count
      }
    }
    firstResponseTime {
      count
      medianSeconds
      p90Seconds
    }
    resolutionTime {
      count
      medianSeconds
      p90Seconds
    }
    topIntents {
      key
      count
    }
    knowledgeCoverage {
      answers
      grounded
      rate
    }
    listedQuestions {
      offered
      chosen
      rate
    }
    unansweredQuestions {
      question
      count
      lastAskedAt
    }
    tokensUsed
    feedback {
      up
      down
      rate
      satisfaction {
        asked
        answered
        average
      }
      byChannel {
        channel
        up
        down
        rate
        satisfaction {
          asked
          answered
          average
        }
      }
    }
    series {
      start
      conversations
      conversationsByChannel {
        key
        count
      }
      escalations
    }
  }
}
    `) as unknown as TypedDocumentString<AnalyticsPageQuery, AnalyticsPageQueryVariables>;
export const ChannelsPageDocument = new TypedDocumentString(`
    query ChannelsPage {
  channels {
    ...ChannelRow
  }
  voices {
    id
    name
    language
    speakingRate
    greeting
    selected
  }
}
    fragment ChannelRow on ChannelConfig {
  id
  type
  name
  enabled
  routingKey
  webhookUrl
  credentials
  settings
  verification {
    status
    instructions
  }
}`) as unknown as TypedDocumentString<ChannelsPageQuery, ChannelsPageQueryVariables>;
export const SaveChannelDocument = new TypedDocumentString(`
    mutation SaveChannel($ref: String!, $name: String, $enabled: Boolean, $credentials: JSON, $settings: JSON) {
  saveChannel(
    ref: $ref
    name: $name
    enabled: $enabled
    credentials: $credentials
    settings: $settings
  ) {
    created
    channel {
      ...ChannelRow
    }
  }
}
    fragment ChannelRow on ChannelConfig {
  id
  type
  name
  enabled
  routingKey
  webhookUrl
  credentials
  settings
  verification {
    status
    instructions
  }
}`) as unknown as TypedDocumentString<SaveChannelMutation, SaveChannelMutationVariables>;
export const DeleteChannelDocument = new TypedDocumentString(`
    mutation DeleteChannel($id: ID!) {
  deleteChannel(id: $id)
}
    `) as unknown as TypedDocumentString<DeleteChannelMutation, DeleteChannelMutationVariables>;
export const SendTestMessageDocument = new TypedDocumentString(`
    mutation SendTestMessage($ref: String!, $to: String!, $text: String) {
  sendChannelTestMessage(ref: $ref, to: $to, text: $text) {
    providerMessageId
  }
}
    `) as unknown as TypedDocumentString<SendTestMessageMutation, SendTestMessageMutationVariables>;
export const SaveVoiceDocument = new TypedDocumentString(`
    mutation SaveVoice($id: ID, $name: String, $language: String, $speakingRate: Float, $greeting: String, $selected: Boolean) {
  saveVoice(
    id: $id
    name: $name
    language: $language
    speakingRate: $speakingRate
    greeting: $greeting
    selected: $selected
  ) {
    id
  }
}
    `) as unknown as TypedDocumentString<SaveVoiceMutation, SaveVoiceMutationVariables>;
export const DeleteVoiceDocument = new TypedDocumentString(`
    mutation DeleteVoice($id: ID!) {
  deleteVoice(id: $id)
}
    `) as unknown as TypedDocumentString<DeleteVoiceMutation, DeleteVoiceMutationVariables>;
export const RetentionDocument = new TypedDocumentString(`
    query Retention {
  tenant {
    id
    retention {
      messages
      identities
      auditRecords
      knowledgeFiles
      deliveryLogs
    }
  }
}
    `) as unknown as TypedDocumentString<RetentionQuery, RetentionQueryVariables>;
export const SetRetentionDocument = new TypedDocumentString(`
    mutation SetRetention($periods: RetentionPeriodsInput!) {
  setRetention(periods: $periods) {
    id
  }
}
    `) as unknown as TypedDocumentString<SetRetentionMutation, SetRetentionMutationVariables>;
export const RunRetentionDocument = new TypedDocumentString(`
    mutation RunRetention {
  runRetention
}
    `) as unknown as TypedDocumentString<RunRetentionMutation, RunRetentionMutationVariables>;
export const LegalHoldsDocument = new TypedDocumentString(`
    query LegalHolds {
  legalHolds {
    id
    conversationId
    customer {
      channel
      customerId
      phone
    }
    reason
    placedBy
    placedByLabel
    createdAt
    active
    releasedAt
    releasedBy
    releaseReason
  }
}
    `) as unknown as TypedDocumentString<LegalHoldsQuery, LegalHoldsQueryVariables>;
export const PlaceLegalHoldDocument = new TypedDocumentString(`
    mutation PlaceLegalHold($conversationId: ID, $customer: CustomerIdentityInput, $reason: String!) {
  placeLegalHold(
    conversationId: $conversationId
    customer: $customer
    reason: $reason
  ) {
    id
  }
}
    `) as unknown as TypedDocumentString<PlaceLegalHoldMutation, PlaceLegalHoldMutationVariables>;
export const ReleaseLegalHoldDocument = new TypedDocumentString(`
    mutation ReleaseLegalHold($id: ID!, $reason: String!) {
  releaseLegalHold(id: $id, reason: $reason) {
    id
  }
}
    `) as unknown as TypedDocumentString<ReleaseLegalHoldMutation, ReleaseLegalHoldMutationVariables>;
export const EraseCustomerDocument = new TypedDocumentString(`
    mutation EraseCustomer($customer: CustomerIdentityInput!) {
  eraseCustomer(customer: $customer) {
    subject
    erased {
      conversations
      messages
      feedback
      surveys
      escalations
      timelineEvents
      webhookEvents
      jobs
    }
    heldBack {
      conversationId
      holdId
      reason
    }
  }
}
    `) as unknown as TypedDocumentString<EraseCustomerMutation, EraseCustomerMutationVariables>;
export const EscalationQueueDocument = new TypedDocumentString(`
    query EscalationQueue($status: EscalationStatus, $priority: EscalationPriority, $mine: Boolean, $teamId: ID, $page: Int, $limit: Int) {
  escalations(
    status: $status
    priority: $priority
    mine: $mine
    teamId: $teamId
    page: $page
    limit: $limit
  ) {
    total
    page
    limit
    items {
      id
      reason
      priority
      status
      note
      createdAt
      resolvedAt
      team {
        id
        name
      }
      assignee {
        id
        name
      }
      conversation {
        id
        channel
        customerName
        customerPhone
        customerId
      }
    }
  }
}
    `) as unknown as TypedDocumentString<EscalationQueueQuery, EscalationQueueQueryVariables>;
export const InboxListDocument = new TypedDocumentString(`
    query InboxList($page: Int, $limit: Int, $mine: Boolean, $unassigned: Boolean, $status: ConversationStatus, $channel: Channel, $intent: String, $q: String, $from: DateTime, $to: DateTime) {
  conversations(
    page: $page
    limit: $limit
    mine: $mine
    unassigned: $unassigned
    status: $status
    channel: $channel
    intent: $intent
    q: $q
    from: $from
    to: $to
  ) {
    total
    items {
      ...ConversationSummary
    }
  }
}
    fragment ConversationSummary on Conversation {
  id
  channel
  status
  customerName
  customerPhone
  customerId
  updatedAt
  messageCount
  lastMessage {
    role
    content
  }
  openEscalation {
    id
    reason
    priority
    assignee {
      id
      name
    }
  }
}`) as unknown as TypedDocumentString<InboxListQuery, InboxListQueryVariables>;
export const ConversationViewDocument = new TypedDocumentString(`
    query ConversationView($id: ID!) {
  conversation(id: $id) {
    id
    channel
    status
    customerName
    customerPhone
    customerId
    createdAt
    updatedAt
    messageCount
    openEscalation {
      id
      reason
      priority
      status
      note
      createdAt
      createdBy
      team {
        id
        name
      }
      assignee {
        id
        name
      }
    }
    timeline {
      id
      type
      fromStatus
      toStatus
      actor
      reason
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<ConversationViewQuery, ConversationViewQueryVariables>;
export const TranscriptDocument = new TypedDocumentString(`
    query Transcript($conversationId: ID!, $page: Int, $limit: Int) {
  conversationMessages(
    conversationId: $conversationId
    page: $page
    limit: $limit
    includeNotes: true
  ) {
    total
    items {
      ...TranscriptMessage
    }
  }
}
    fragment TranscriptMessage on Message {
  id
  role
  content
  metadata
  createdAt
  delivery {
    status
    attempts
    error
  }
}`) as unknown as TypedDocumentString<TranscriptQuery, TranscriptQueryVariables>;
export const CustomerConversationsDocument = new TypedDocumentString(`
    query CustomerConversations($customerId: String!, $channel: Channel) {
  conversations(customerId: $customerId, channel: $channel, limit: 20) {
    total
    items {
      id
      status
      createdAt
      messageCount
    }
  }
}
    `) as unknown as TypedDocumentString<CustomerConversationsQuery, CustomerConversationsQueryVariables>;
export const AssignTargetsDocument = new TypedDocumentString(`
    query AssignTargets {
  agents(limit: 100) {
    items {
      id
      name
      role
      availability
    }
  }
  teams {
    id
    name
  }
}
    `) as unknown as TypedDocumentString<AssignTargetsQuery, AssignTargetsQueryVariables>;
export const ConversationActivityDocument = new TypedDocumentString(`
    subscription ConversationActivity($conversationId: ID) {
  conversationActivity(conversationId: $conversationId) {
    type
    conversationId
    message {
      ...TranscriptMessage
    }
  }
}
    fragment TranscriptMessage on Message {
  id
  role
  content
  metadata
  createdAt
  delivery {
    status
    attempts
    error
  }
}`) as unknown as TypedDocumentString<ConversationActivitySubscription, ConversationActivitySubscriptionVariables>;
export const ReplyDocument = new TypedDocumentString(`
    mutation Reply($conversationId: ID!, $content: String!) {
  replyToConversation(conversationId: $conversationId, content: $content) {
    ...TranscriptMessage
  }
}
    fragment TranscriptMessage on Message {
  id
  role
  content
  metadata
  createdAt
  delivery {
    status
    attempts
    error
  }
}`) as unknown as TypedDocumentString<ReplyMutation, ReplyMutationVariables>;
export const AddNoteDocument = new TypedDocumentString(`
    mutation AddNote($conversationId: ID!, $content: String!) {
  addNote(conversationId: $conversationId, content: $content) {
    ...TranscriptMessage
  }
}
    fragment TranscriptMessage on Message {
  id
  role
  content
  metadata
  createdAt
  delivery {
    status
    attempts
    error
  }
}`) as unknown as TypedDocumentString<AddNoteMutation, AddNoteMutationVariables>;
export const EscalateDocument = new TypedDocumentString(`
    mutation Escalate($conversationId: ID!, $note: String) {
  createEscalation(conversationId: $conversationId, note: $note) {
    id
  }
}
    `) as unknown as TypedDocumentString<EscalateMutation, EscalateMutationVariables>;
export const WorkEscalationDocument = new TypedDocumentString(`
    mutation WorkEscalation($id: ID!, $assigneeId: ID, $teamId: ID, $status: EscalationStatus, $priority: EscalationPriority) {
  updateEscalation(
    id: $id
    assigneeId: $assigneeId
    teamId: $teamId
    status: $status
    priority: $priority
  ) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<WorkEscalationMutation, WorkEscalationMutationVariables>;
export const IntentsPageDocument = new TypedDocumentString(`
    query IntentsPage {
  intents {
    id
    name
    description
    agentType
    urgent
    examples
    updatedAt
  }
}
    `) as unknown as TypedDocumentString<IntentsPageQuery, IntentsPageQueryVariables>;
export const CreateIntentDocument = new TypedDocumentString(`
    mutation CreateIntent($name: String!, $agentType: String, $urgent: Boolean, $examples: [String!]) {
  createIntent(
    name: $name
    agentType: $agentType
    urgent: $urgent
    examples: $examples
  ) {
    id
  }
}
    `) as unknown as TypedDocumentString<CreateIntentMutation, CreateIntentMutationVariables>;
export const UpdateIntentDocument = new TypedDocumentString(`
    mutation UpdateIntent($id: ID!, $agentType: String, $urgent: Boolean, $examples: [String!]) {
  updateIntent(
    id: $id
    agentType: $agentType
    urgent: $urgent
    examples: $examples
  ) {
    id
  }
}
    `) as unknown as TypedDocumentString<UpdateIntentMutation, UpdateIntentMutationVariables>;
export const DeleteIntentDocument = new TypedDocumentString(`
    mutation DeleteIntent($id: ID!) {
  deleteIntent(id: $id) {
    deleted
  }
}
    `) as unknown as TypedDocumentString<DeleteIntentMutation, DeleteIntentMutationVariables>;
export const ImportIntentExamplesDocument = new TypedDocumentString(`
    mutation ImportIntentExamples($examples: [IntentExampleInput!]!, $replace: Boolean) {
  importIntentExamples(examples: $examples, replace: $replace) {
    created
    examples
    intents
  }
}
    `) as unknown as TypedDocumentString<ImportIntentExamplesMutation, ImportIntentExamplesMutationVariables>;
export const ClassifyIntentsDocument = new TypedDocumentString(`
    query ClassifyIntents($texts: [String!]!) {
  classifyIntents(texts: $texts) {
    intent
    confidence
  }
}
    `) as unknown as TypedDocumentString<ClassifyIntentsQuery, ClassifyIntentsQueryVariables>;
export const KnowledgePageDocument = new TypedDocumentString(`
    query KnowledgePage {
  knowledgeSummary {
    sources
    chunks
    tokens
    lastSyncedAt
  }
  knowledgeSources {
    ...SourceRow
  }
}
    fragment SourceRow on KnowledgeSource {
  id
  type
  title
  sourceUrl
  fileName
  status
  error
  pages
  chunks
  tokens
  lastSyncedAt
  createdAt
  progress {
    discovered
    done
    maxPages
  }
}`) as unknown as TypedDocumentString<KnowledgePageQuery, KnowledgePageQueryVariables>;
export const UnansweredQuestionsDocument = new TypedDocumentString(`
    query UnansweredQuestions {
  analytics {
    unansweredQuestions {
      question
      count
      lastAskedAt
      conversationId
    }
  }
}
    `) as unknown as TypedDocumentString<UnansweredQuestionsQuery, UnansweredQuestionsQueryVariables>;
export const AddSourceDocument = new TypedDocumentString(`
    mutation AddSource($type: String!, $sourceUrl: String, $title: String, $content: String) {
  addKnowledgeSource(
    type: $type
    sourceUrl: $sourceUrl
    title: $title
    content: $content
  ) {
    ...SourceRow
  }
}
    fragment SourceRow on KnowledgeSource {
  id
  type
  title
  sourceUrl
  fileName
  status
  error
  pages
  chunks
  tokens
  lastSyncedAt
  createdAt
  progress {
    discovered
    done
    maxPages
  }
}`) as unknown as TypedDocumentString<AddSourceMutation, AddSourceMutationVariables>;
export const UploadPdfDocument = new TypedDocumentString(`
    mutation UploadPdf($file: File!, $title: String) {
  uploadPdfSource(file: $file, title: $title) {
    ...SourceRow
  }
}
    fragment SourceRow on KnowledgeSource {
  id
  type
  title
  sourceUrl
  fileName
  status
  error
  pages
  chunks
  tokens
  lastSyncedAt
  createdAt
  progress {
    discovered
    done
    maxPages
  }
}`) as unknown as TypedDocumentString<UploadPdfMutation, UploadPdfMutationVariables>;
export const ResyncSourceDocument = new TypedDocumentString(`
    mutation ResyncSource($id: ID!) {
  syncKnowledgeSource(id: $id) {
    ...SourceRow
  }
}
    fragment SourceRow on KnowledgeSource {
  id
  type
  title
  sourceUrl
  fileName
  status
  error
  pages
  chunks
  tokens
  lastSyncedAt
  createdAt
  progress {
    discovered
    done
    maxPages
  }
}`) as unknown as TypedDocumentString<ResyncSourceMutation, ResyncSourceMutationVariables>;
export const DeleteSourceDocument = new TypedDocumentString(`
    mutation DeleteSource($id: ID!) {
  deleteKnowledgeSource(id: $id) {
    deleted
    chunks
  }
}
    `) as unknown as TypedDocumentString<DeleteSourceMutation, DeleteSourceMutationVariables>;
export const SearchKnowledgeDocument = new TypedDocumentString(`
    query SearchKnowledge($query: String!, $topK: Int) {
  searchKnowledge(query: $query, topK: $topK) {
    chunkId
    sourceId
    sourceTitle
    title
    url
    page
    score
    similarity
    text
  }
}
    `) as unknown as TypedDocumentString<SearchKnowledgeQuery, SearchKnowledgeQueryVariables>;
export const KnowledgeSourceChangedDocument = new TypedDocumentString(`
    subscription KnowledgeSourceChanged {
  knowledgeSourceChanged {
    id
  }
}
    `) as unknown as TypedDocumentString<KnowledgeSourceChangedSubscription, KnowledgeSourceChangedSubscriptionVariables>;
export const LoginDocument = new TypedDocumentString(`
    mutation Login($email: String!, $password: String!, $tenantId: ID) {
  login(email: $email, password: $password, tenantId: $tenantId) {
    ...SignInStep
  }
}
    fragment SignInStep on Login {
  token
  expiresAt
  agent {
    ...Me
  }
  mfaChallenge {
    challengeToken
  }
  mfaEnrolmentRequired
}
fragment Me on Agent {
  id
  name
  email
  role
  availability
}`) as unknown as TypedDocumentString<LoginMutation, LoginMutationVariables>;
export const ExchangeLoginCodeDocument = new TypedDocumentString(`
    mutation ExchangeLoginCode($code: String!) {
  exchangeLoginCode(code: $code) {
    ...SignInStep
  }
}
    fragment SignInStep on Login {
  token
  expiresAt
  agent {
    ...Me
  }
  mfaChallenge {
    challengeToken
  }
  mfaEnrolmentRequired
}
fragment Me on Agent {
  id
  name
  email
  role
  availability
}`) as unknown as TypedDocumentString<ExchangeLoginCodeMutation, ExchangeLoginCodeMutationVariables>;
export const SignInProviderDocument = new TypedDocumentString(`
    query SignInProvider($tenantId: ID!) {
  signInProvider(tenantId: $tenantId) {
    name
    signInPath
  }
}
    `) as unknown as TypedDocumentString<SignInProviderQuery, SignInProviderQueryVariables>;
export const CompleteMfaLoginDocument = new TypedDocumentString(`
    mutation CompleteMfaLogin($challengeToken: String!, $code: String!) {
  verifyMfaLogin(challengeToken: $challengeToken, code: $code) {
    token
    expiresAt
    agent {
      ...Me
    }
  }
}
    fragment Me on Agent {
  id
  name
  email
  role
  availability
}`) as unknown as TypedDocumentString<CompleteMfaLoginMutation, CompleteMfaLoginMutationVariables>;
export const LogoutDocument = new TypedDocumentString(`
    mutation Logout {
  logout
}
    `) as unknown as TypedDocumentString<LogoutMutation, LogoutMutationVariables>;
export const CurrentUserDocument = new TypedDocumentString(`
    query CurrentUser {
  me {
    ...Me
  }
  tenant {
    id
    name
  }
}
    fragment Me on Agent {
  id
  name
  email
  role
  availability
}`) as unknown as TypedDocumentString<CurrentUserQuery, CurrentUserQueryVariables>;
export const SetAvailabilityDocument = new TypedDocumentString(`
    mutation SetAvailability($id: ID!, $availability: Availability!) {
  updateAgent(id: $id, availability: $availability) {
    ...Me
  }
}
    fragment Me on Agent {
  id
  name
  email
  role
  availability
}`) as unknown as TypedDocumentString<SetAvailabilityMutation, SetAvailabilityMutationVariables>;
export const SettingsPageDocument = new TypedDocumentString(`
    query SettingsPage {
  tenant {
    id
    name
    settings
    rateLimit {
      max
      windowS
    }
    aiDisclosure
    businessHours {
      timeZone
      weekly {
        day
        open
        close
      }
      holidays {
        date
        name
      }
      openNow
      nextOpeningAt
    }
  }
  channels {
    id
    type
    name
    enabled
    settings
  }
}
    `) as unknown as TypedDocumentString<SettingsPageQuery, SettingsPageQueryVariables>;
export const ApiKeysDocument = new TypedDocumentString(`
    query ApiKeys {
  apiKeys {
    id
    name
    prefix
    role
    createdAt
    lastUsedAt
    revokedAt
  }
}
    `) as unknown as TypedDocumentString<ApiKeysQuery, ApiKeysQueryVariables>;
export const UpdateTenantDocument = new TypedDocumentString(`
    mutation UpdateTenant($name: String, $persona: String, $piiRedaction: Boolean, $rateLimitMax: Int, $rateLimitWindowS: Int, $lowConfidenceEscalateAfter: Int) {
  updateTenant(
    name: $name
    persona: $persona
    piiRedaction: $piiRedaction
    rateLimitMax: $rateLimitMax
    rateLimitWindowS: $rateLimitWindowS
    lowConfidenceEscalateAfter: $lowConfidenceEscalateAfter
  ) {
    id
  }
}
    `) as unknown as TypedDocumentString<UpdateTenantMutation, UpdateTenantMutationVariables>;
export const CreateApiKeyDocument = new TypedDocumentString(`
    mutation CreateApiKey($name: String!, $role: Role) {
  createApiKey(name: $name, role: $role) {
    key
    apiKey {
      id
    }
  }
}
    `) as unknown as TypedDocumentString<CreateApiKeyMutation, CreateApiKeyMutationVariables>;
export const RevokeApiKeyDocument = new TypedDocumentString(`
    mutation RevokeApiKey($id: ID!) {
  revokeApiKey(id: $id) {
    id
  }
}
    `) as unknown as TypedDocumentString<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>;
export const CreateWidgetTokenDocument = new TypedDocumentString(`
    mutation CreateWidgetToken($ref: String) {
  createWidgetToken(ref: $ref) {
    token
    embedSnippet
  }
}
    `) as unknown as TypedDocumentString<CreateWidgetTokenMutation, CreateWidgetTokenMutationVariables>;
export const RequireMfaDocument = new TypedDocumentString(`
    mutation RequireMfa($requireMfa: Boolean!) {
  updateTenant(requireMfa: $requireMfa) {
    id
  }
}
    `) as unknown as TypedDocumentString<RequireMfaMutation, RequireMfaMutationVariables>;
export const UpdateDisclosureDocument = new TypedDocumentString(`
    mutation UpdateDisclosure($aiDisclosure: String, $aiDisclosureEnabled: Boolean, $assistantName: String) {
  updateTenant(
    aiDisclosure: $aiDisclosure
    aiDisclosureEnabled: $aiDisclosureEnabled
    assistantName: $assistantName
  ) {
    id
  }
}
    `) as unknown as TypedDocumentString<UpdateDisclosureMutation, UpdateDisclosureMutationVariables>;
export const SetBusinessHoursDocument = new TypedDocumentString(`
    mutation SetBusinessHours($hours: BusinessHoursInput) {
  setBusinessHours(hours: $hours) {
    id
  }
}
    `) as unknown as TypedDocumentString<SetBusinessHoursMutation, SetBusinessHoursMutationVariables>;
export const OidcSettingsDocument = new TypedDocumentString(`
    query OidcSettings {
  oidcConfig {
    issuer
    clientId
    clientSecret
    allowedDomains
    emailClaim
    jitRole
    enabled
    redirectUri
    signInUrl
  }
}
    `) as unknown as TypedDocumentString<OidcSettingsQuery, OidcSettingsQueryVariables>;
export const SaveOidcSettingsDocument = new TypedDocumentString(`
    mutation SaveOidcSettings($issuer: String!, $clientId: String!, $clientSecret: String, $allowedDomains: [String!], $emailClaim: String, $jitRole: JitRole, $enabled: Boolean) {
  saveOidcConfig(
    issuer: $issuer
    clientId: $clientId
    clientSecret: $clientSecret
    allowedDomains: $allowedDomains
    emailClaim: $emailClaim
    jitRole: $jitRole
    enabled: $enabled
  ) {
    issuer
  }
}
    `) as unknown as TypedDocumentString<SaveOidcSettingsMutation, SaveOidcSettingsMutationVariables>;
export const DeleteOidcSettingsDocument = new TypedDocumentString(`
    mutation DeleteOidcSettings {
  deleteOidcConfig
}
    `) as unknown as TypedDocumentString<DeleteOidcSettingsMutation, DeleteOidcSettingsMutationVariables>;