/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type Availability =
  | 'away'
  | 'offline'
  | 'online';

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

export type ConversationStatus =
  | 'assigned'
  | 'closed'
  | 'escalated'
  | 'open'
  | 'resolved';

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

export type InboxEventType =
  | 'assigned'
  | 'escalated'
  | 'message'
  | 'resolved'
  | 'unassigned'
  | 'updated';

export type Role =
  | 'admin'
  | 'agent'
  | 'owner'
  | 'viewer';

export type AnalyticsPageQueryVariables = Exact<{
  from?: string | null | undefined;
  to?: string | null | undefined;
  channel?: Channel | null | undefined;
  granularity?: Granularity | null | undefined;
}>;


export type AnalyticsPageQuery = { analytics: { from: string, to: string, channel: string | null, granularity: Granularity, aiResolved: number, aiResolutionRate: number | null, escalated: number, escalationRate: number | null, tokensUsed: number, conversations: { total: number, byChannel: Array<{ key: string, count: number }> }, messages: { total: number, customer: number, ai: number, agent: number }, escalations: { total: number, byReason: Array<{ key: string, count: number }> }, firstResponseTime: { count: number, medianSeconds: number | null, p90Seconds: number | null }, resolutionTime: { count: number, medianSeconds: number | null, p90Seconds: number | null }, topIntents: Array<{ key: string, count: number }>, knowledgeCoverage: { answers: number, grounded: number, rate: number | null }, unansweredQuestions: Array<{ question: string, count: number, lastAskedAt: string }>, series: Array<{ start: string, conversations: number, escalations: number, conversationsByChannel: Array<{ key: string, count: number }> }> } };

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

export type LoginMutationVariables = Exact<{
  email: string;
  password: string;
  tenantId?: string | null | undefined;
}>;


export type LoginMutation = { login: { token: string, expiresAt: string, agent: { id: string, name: string, email: string, role: Role, availability: Availability } } };

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
    unansweredQuestions {
      question
      count
      lastAskedAt
    }
    tokensUsed
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
export const LoginDocument = new TypedDocumentString(`
    mutation Login($email: String!, $password: String!, $tenantId: ID) {
  login(email: $email, password: $password, tenantId: $tenantId) {
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
}`) as unknown as TypedDocumentString<LoginMutation, LoginMutationVariables>;
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