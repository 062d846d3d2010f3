import { createParser, type EventSourceMessage } from "eventsource-parser";

/**
 * The server-sent events of a response, parsed as a browser would, until `until` says enough (then
 * the stream is cancelled) or the server ends it.
 */
export async function readEvents(
  res: Response,
  until: (events: EventSourceMessage[]) => boolean = () => false,
): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  while (!until(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  await reader.cancel();
  return events;
}
