import { type ChatMessage, type Reply, WidgetApi, WidgetError } from "./api.js";
import { loadVisitor, rememberOpen, saveVisitor, storageKeyOf, wasOpen } from "./storage.js";
import { ChatView, type Position, type Shown } from "./view.js";

const notices = {
  offline: "You are offline. You can send messages again once your connection is back.",
  unreachable: "The chat cannot be reached right now. Trying again…",
  auth: "This chat is not available: its key is not valid.",
  origin: "This chat is not enabled for this website.",
  failed: "Sorry, something went wrong. Please try again.",
};

const rateNotice = (seconds: number) => `You are sending messages too quickly. Please wait ${seconds} seconds.`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The widget's behaviour: it starts (or resumes) the visitor's conversation, sends messages with the reply
 * streamed in, follows the conversation's live feed for replies written elsewhere (an agent), and tells the
 * visitor plainly when it is offline, refused or rate-limited.
 */
export function startWidget(options: { base: string; token: string; position?: Position }): ChatView {
  const key = storageKeyOf(options.token);
  const api = new WidgetApi(options.base, options.token, loadVisitor(key));
  const shown = new Map<string, Shown>();
  let ready = false;
  let streaming = true;
  let busy = false;
  let blockedUntil = 0;
  let retryMs = 2_000;
  let followed: { conversationId: string; stop: AbortController } | null = null;

  const view = new ChatView(
    {
      send: (text, choice) => void send(text, choice),
      toggled: (open) => rememberOpen(key, open),
      rate: (messageId, rating) => void api.rate(messageId, rating).catch(refused),
      score: (score) => void api.score(score).catch(refused),
    },
    options.position,
  );
  document.body.append(view.host);
  if (wasOpen(key)) view.setOpen(true, false);

  const sendable = () => view.setSendable(ready && !busy && Date.now() >= blockedUntil && navigator.onLine !== false);

  /** The disclosure shown before the conversation stored one: the stored one takes its place rather than repeat it. */
  let disclosure: Shown | null = null;

  /** A message the service stored: shown once, and its stored text wins over what was streamed. */
  function showStored(message: ChatMessage, live: boolean): void {
    if (message.kind === "disclosure" && disclosure && !shown.has(message.id)) {
      shown.set(message.id, disclosure);
      disclosure = null;
    }
    const known = shown.get(message.id);
    if (!known) shown.set(message.id, { ...view.add(message, live), confirmed: true });
    else {
      if (known.text !== message.content) view.write(known, message.content);
      known.confirmed = true;
    }
    offerFeedback(message.id, message);
    offerSuggestions(message.id, message.suggestions);
  }

  /** The questions a decline lists, as buttons that ask them; only the latest message keeps them (ChatView). */
  function offerSuggestions(id: string, questions: string[] | undefined): void {
    const on = shown.get(id);
    if (on && questions?.length) view.offerSuggestions(on, questions);
  }

  /** Thumbs under the AI's answers; the answers 1 to 5 under the satisfaction question. */
  function offerFeedback(id: string, message: Pick<ChatMessage, "role" | "kind">): void {
    const on = shown.get(id);
    if (!on) return;
    if (message.role === "assistant" && !message.kind) view.offerRating(on, id);
    else if (message.kind === "survey") view.offerSurvey(on);
  }

  function refused(error: unknown): void {
    if (!(error instanceof WidgetError)) {
      console.error("Parley widget:", error);
      view.showNotice(notices.failed);
    } else if (error.kind === "rate") {
      blockedUntil = Date.now() + error.retryAfterS * 1000;
      view.showNotice(rateNotice(error.retryAfterS));
      setTimeout(() => {
        if (Date.now() >= blockedUntil) view.showNotice(null);
        sendable();
      }, error.retryAfterS * 1000);
    } else view.showNotice(notices[error.kind]);
    sendable();
  }

  async function start(): Promise<void> {
    try {
      const result = await api.init();
      saveVisitor(key, result.visitor_id);
      streaming = result.config.streaming;
      view.configure(result.config);
      view.clearMessages();
      shown.clear();
      const told = result.messages.some((m) => m.kind === "disclosure");
      disclosure = result.config.disclosure && !told ? view.add({ role: "assistant", content: result.config.disclosure }) : null;
      if (result.config.greeting) view.add({ role: "assistant", content: result.config.greeting });
      for (const message of result.messages) showStored(message, false);
      ready = true;
      retryMs = 2_000;
      view.showNotice(null);
      sendable();
      if (result.conversation) follow(result.conversation.id);
    } catch (error) {
      refused(error);
      const kind = (error as WidgetError).kind;
      if (kind === "unreachable" || kind === "rate") {
        await sleep(kind === "rate" ? (error as WidgetError).retryAfterS * 1000 : retryMs);
        retryMs = Math.min(retryMs * 2, 60_000);
        if (navigator.onLine !== false) void start();
      }
    }
  }

  /** Keeps the conversation's live feed open, reconnecting after a drop, until another conversation takes its place. */
  function follow(conversationId: string): void {
    if (followed?.conversationId === conversationId) return;
    followed?.stop.abort();
    const stop = new AbortController();
    followed = { conversationId, stop };
    void (async () => {
      let delay = 2_000;
      while (!stop.signal.aborted) {
        try {
          await api.follow(conversationId, (message) => showStored(message, true), stop.signal);
          delay = 2_000;
        } catch (error) {
          if (stop.signal.aborted) return;
          const kind = (error as WidgetError).kind;
          if (kind === "auth" || kind === "origin") return;
          if (kind === "rate") delay = (error as WidgetError).retryAfterS * 1000;
        }
        await sleep(delay);
        delay = Math.min(delay * 2, 60_000);
      }
    })();
  }

  async function send(text: string, choice = false): Promise<void> {
    if (!ready || busy) return;
    busy = true;
    sendable();
    view.showNotice(null);
    const mine = view.add({ role: "customer", content: text });
    view.setTyping(true);
    let reply: { id: string; shown: Shown | null } | null = null;
    try {
      const done: Reply = await api.send(text, streaming, choice, {
        meta(ids) {
          follow(ids.conversationId);
          reply = { id: ids.messageId, shown: shown.get(ids.messageId) ?? null };
        },
        delta(piece) {
          if (!reply) return;
          view.setTyping(false);
          if (!reply.shown) {
            reply.shown = view.add({ role: "assistant", content: "" });
            shown.set(reply.id, reply.shown);
          }
          if (!reply.shown.confirmed) view.write(reply.shown, reply.shown.text + piece);
        },
      });
      follow(done.conversationId);
      if (done.messageId) {
        const streamed = shown.get(done.messageId);
        if (!streamed) shown.set(done.messageId, view.add({ role: "assistant", content: done.response }, true));
        else {
          if (!streamed.confirmed) view.write(streamed, done.response);
          view.announce("assistant", streamed.text);
        }
        offerSuggestions(done.messageId, done.metadata?.suggestions);
      }
    } catch (error) {
      // Refused before it reached the conversation: the visitor gets their text back to send again.
      if (error instanceof WidgetError && error.kind !== "failed") {
        mine.node.remove();
        view.restoreInput(text);
      }
      refused(error);
    } finally {
      busy = false;
      view.setTyping(false);
      sendable();
    }
  }

  window.addEventListener("offline", () => {
    view.showNotice(notices.offline);
    sendable();
  });
  window.addEventListener("online", () => {
    view.showNotice(null);
    if (ready) sendable();
    else void start();
  });
  sendable();
  void start();
  return view;
}
