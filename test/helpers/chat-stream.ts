import { print } from "graphql";
import { type Client, createClient, type ExecutionResult } from "graphql-sse";
import { StreamChatDocument, type StreamChatSubscription, type StreamChatSubscriptionVariables } from "../generated.js";

export interface ChatStreams {
  /** Every result of one `chatStream` subscription over graphql-sse, read with its client until it completes. */
  subscribe(
    headers: Record<string, string>,
    variables: StreamChatSubscriptionVariables,
  ): Promise<Array<ExecutionResult<StreamChatSubscription, unknown>>>;
  dispose(): void;
}

/** graphql-sse clients of one service (at `url`), disposed together. */
export function chatStreams(url: string): ChatStreams {
  const clients: Client[] = [];
  return {
    async subscribe(headers, variables) {
      // The client retries failed connections by default: a rejected key must fail at once.
      const client = createClient({ url: `${url}/graphql`, headers, retryAttempts: 0 });
      clients.push(client);
      const results = [];
      for await (const result of client.iterate<StreamChatSubscription>({ query: print(StreamChatDocument), variables })) {
        results.push(result);
      }
      return results;
    },
    dispose() {
      for (const client of clients) client.dispose();
    },
  };
}
