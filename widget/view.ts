import type { ChatMessage, WidgetConfig } from "./api.js";
import { css } from "./styles.js";
import { renderText } from "./text.js";

export const positions = ["bottom-right", "bottom-left", "top-right", "top-left"] as const;
export type Position = (typeof positions)[number];
export const isPosition = (value: unknown): value is Position => positions.includes(value as Position);

export interface ViewEvents {
  /** `choice`: the text is one of the questions a decline listed, pressed rather than typed. */
  send(text: string, choice?: boolean): void;
  toggled(open: boolean): void;
  rate(messageId: string, rating: "up" | "down"): void;
  score(score: number): void;
}

const icons = {
  chat: '<svg viewBox="0 0 24 24" fill="currentColor" aria-hidden="true"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"/></svg>',
  close:
    '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" aria-hidden="true"><path d="M6 6l12 12M18 6L6 18"/></svg>',
};

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** Readable text on the brand colour: dark on light colours, white on dark ones. */
function textOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.6 ? "#111111" : "#ffffff";
}

const speaker = { customer: "You", assistant: "Assistant", system: "Assistant", agent: "Team member" } as const;

/** One message on screen; `confirmed` once its stored text has been shown, after which streaming no longer changes it. */
export interface Shown {
  node: HTMLLIElement;
  bubble: HTMLDivElement;
  text: string;
  confirmed: boolean;
}

/**
 * The launcher and the chat panel, in a shadow root. Keyboard: the panel is a modal dialog that keeps focus
 * inside it and closes on Escape, giving focus back to the launcher; complete replies are read out by a live region.
 */
export class ChatView {
  readonly host = document.createElement("parley-chat");
  private readonly root = el("div", { class: "root bottom-right" });
  private readonly launcher = el("button", {
    class: "launcher",
    type: "button",
    "aria-expanded": "false",
    "aria-controls": "panel",
  });
  private readonly launcherIcon = el("span", { class: "icon" });
  private readonly badge = el("span", { class: "badge", hidden: "" });
  private readonly panel = el("section", {
    class: "panel",
    id: "panel",
    role: "dialog",
    "aria-modal": "true",
    "aria-labelledby": "title",
    hidden: "",
  });
  private readonly title = el("h2", { id: "title" });
  private readonly notice = el("div", { class: "notice", role: "alert", hidden: "" });
  private readonly list = el("ol", { class: "messages", "aria-label": "Messages" });
  private readonly typing = el("div", { class: "typing", role: "status", hidden: "" });
  private readonly input = el("textarea", { id: "input", rows: "1", maxlength: "4000", placeholder: "Type your message…" });
  private readonly sendButton = el("button", { class: "send", type: "submit" }, "Send");
  private readonly announcer = el("div", { class: "sr-only", "aria-live": "polite", "aria-atomic": "true" });
  private unread = 0;
  private name = "Chat";

  constructor(
    private readonly events: ViewEvents,
    private readonly position?: Position,
  ) {
    const shadow = this.host.attachShadow({ mode: "open" });
    if ("replaceSync" in CSSStyleSheet.prototype) {
      // A constructed sheet, not a <style>: pages with a strict Content-Security-Policy still style the widget.
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      shadow.adoptedStyleSheets = [sheet];
    } else shadow.append(el("style", {}, css));

    this.launcher.append(this.launcherIcon, this.badge);
    const close = el("button", { class: "close", type: "button", "aria-label": "Close chat" });
    close.innerHTML = icons.close;
    const form = el("form", {}, el("label", { class: "sr-only", for: "input" }, "Message"), this.input, this.sendButton);
    this.typing.append(
      el("span", { class: "dots", "aria-hidden": "true" }, el("i"), el("i"), el("i")),
      el("span", { class: "sr-only" }),
    );
    this.panel.append(el("header", {}, this.title, close), this.notice, this.list, this.typing, form, this.announcer);
    this.root.append(this.panel, this.launcher);
    shadow.append(this.root);

    this.launcher.addEventListener("click", () => this.setOpen(this.panel.hidden));
    close.addEventListener("click", () => this.setOpen(false));
    this.panel.addEventListener("keydown", (event) => this.onKey(event));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.submit();
      }
    });
    this.input.addEventListener("input", () => this.fitInput());
    this.configure({
      title: "Chat",
      greeting: null,
      position: "bottom-right",
      streaming: true,
      colors: { primary: "#1f4fd1", background: "#ffffff", text: "#1d2330" },
      disclosure: null,
    });
  }

  /** The channel's look; the script tag's position, when it gives one, wins over the channel's. */
  configure(config: WidgetConfig): void {
    this.name = config.title;
    this.title.textContent = config.title;
    (this.typing.lastChild as HTMLElement).textContent = `${config.title} is typing…`;
    this.root.className = `root ${this.position ?? (isPosition(config.position) ? config.position : "bottom-right")}`;
    const style = this.host.style;
    style.setProperty("--pw-primary", config.colors.primary);
    style.setProperty("--pw-on-primary", textOn(config.colors.primary));
    style.setProperty("--pw-bg", config.colors.background);
    style.setProperty("--pw-text", config.colors.text);
    this.labelLauncher();
  }

  get isOpen(): boolean {
    return !this.panel.hidden;
  }

  setOpen(open: boolean, focus = true): void {
    if (open === this.isOpen) return;
    this.panel.hidden = !open;
    this.launcher.setAttribute("aria-expanded", String(open));
    if (open) {
      this.unread = 0;
      this.scrollToEnd();
      if (focus) this.input.focus();
    } else if (focus) this.launcher.focus();
    this.labelLauncher();
    this.events.toggled(open);
  }

  private labelLauncher(): void {
    this.launcherIcon.innerHTML = this.isOpen ? icons.close : icons.chat;
    this.badge.hidden = this.unread === 0 || this.isOpen;
    this.badge.textContent = String(this.unread);
    const waiting = this.unread ? ` (${this.unread} new ${this.unread === 1 ? "message" : "messages"})` : "";
    this.launcher.setAttribute("aria-label", `${this.isOpen ? "Close" : "Open"} chat: ${this.name}${waiting}`);
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key === "Escape") {
      event.stopPropagation();
      this.setOpen(false);
      return;
    }
    if (event.key !== "Tab") return;
    const focusable = [...this.panel.querySelectorAll<HTMLElement>("button:not([disabled]), textarea:not([disabled]), a[href]")];
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    const active = (this.host.shadowRoot as ShadowRoot).activeElement;
    if (event.shiftKey && (active === first || !this.panel.contains(active))) {
      event.preventDefault();
      last?.focus();
    } else if (!event.shiftKey && (active === last || !this.panel.contains(active))) {
      event.preventDefault();
      first?.focus();
    }
  }

  private submit(): void {
    const text = this.input.value.trim();
    if (!text || this.sendButton.disabled) return;
    this.input.value = "";
    this.fitInput();
    this.events.send(text);
  }

  private fitInput(): void {
    this.input.style.height = "auto";
    this.input.style.height = `${this.input.scrollHeight + 2}px`;
  }

  /** Puts back a message that could not be sent, unless the visitor has started another. */
  restoreInput(text: string): void {
    if (!this.input.value) this.input.value = text;
  }

  /** Whether sending is possible; typing stays possible, so nothing is lost while waiting. */
  setSendable(sendable: boolean): void {
    this.sendButton.disabled = !sendable;
  }

  setTyping(typing: boolean): void {
    this.typing.hidden = !typing;
    if (typing) this.scrollToEnd();
  }

  showNotice(text: string | null): void {
    this.notice.hidden = text === null;
    this.notice.textContent = text ?? "";
  }

  clearMessages(): void {
    this.list.textContent = "";
  }

  /**
   * Adds a message at the end; a `live` one (not history) is read out, and counted as unread while the panel is closed.
   * Questions offered under an earlier message are taken away: the conversation has moved on.
   */
  add(message: Pick<ChatMessage, "role" | "content">, live = false): Shown {
    for (const offered of this.list.querySelectorAll(".suggestions")) offered.remove();
    const bubble = el("div", { class: "bubble" });
    // The service's notices (role system) read as the assistant's.
    const node = el("li", { class: `msg ${message.role === "system" ? "assistant" : message.role}` });
    node.append(
      message.role === "agent"
        ? el("span", { class: "who" }, speaker.agent)
        : el("span", { class: "sr-only" }, `${speaker[message.role]}:`),
      bubble,
    );
    this.list.append(node);
    const shown: Shown = { node, bubble, text: "", confirmed: false };
    this.write(shown, message.content);
    if (live) this.announce(message.role, message.content);
    if (live && message.role !== "customer" && !this.isOpen) {
      this.unread += 1;
      this.labelLauncher();
    }
    this.scrollToEnd();
    return shown;
  }

  /** Thumbs up and down under an AI reply: toggle buttons, the pressed one is the visitor's rating. */
  offerRating(shown: Shown, messageId: string): void {
    const choices = [
      { rating: "up", label: "Helpful", glyph: "👍" },
      { rating: "down", label: "Not helpful", glyph: "👎" },
    ] as const;
    this.choiceGroup(shown, "rate", "Was this reply helpful?", choices, (choice) => this.events.rate(messageId, choice.rating));
  }

  /** The satisfaction question's answers, 1 to 5. */
  offerSurvey(shown: Shown): void {
    const choices = [1, 2, 3, 4, 5].map((score) => ({ score, label: `${score} out of 5`, glyph: String(score) }));
    this.choiceGroup(shown, "survey", "Your satisfaction, from 1 (not at all) to 5 (very satisfied)", choices, (choice) =>
      this.events.score(choice.score),
    );
  }

  /** The questions a decline lists, under it while it is the latest message: choosing one sends it. */
  offerSuggestions(shown: Shown, questions: readonly string[]): void {
    if (shown.node !== this.list.lastElementChild || shown.node.querySelector(".suggestions")) return;
    const group = el("div", { class: "suggestions", role: "group", "aria-label": "Questions you may have meant" });
    for (const question of questions) {
      const button = el("button", { type: "button" }, question);
      button.addEventListener("click", () => {
        if (!this.sendButton.disabled) this.events.send(question, true);
      });
      group.append(button);
    }
    shown.node.append(group);
    this.scrollToEnd();
  }

  /** A row of toggle buttons under a message (once): choosing one presses it and releases the others. */
  private choiceGroup<C extends { label: string; glyph: string }>(
    shown: Shown,
    kind: string,
    label: string,
    choices: readonly C[],
    chosen: (choice: C) => void,
  ): void {
    if (shown.node.querySelector(`.${kind}`)) return;
    const group = el("div", { class: `choices ${kind}`, role: "group", "aria-label": label });
    const buttons = choices.map((choice) => {
      const button = el("button", { type: "button", "aria-pressed": "false", "aria-label": choice.label }, choice.glyph);
      button.addEventListener("click", () => {
        for (const other of buttons) other.setAttribute("aria-pressed", String(other === button));
        chosen(choice);
      });
      return button;
    });
    group.append(...buttons);
    shown.node.append(group);
  }

  write(shown: Shown, text: string): void {
    shown.text = text;
    renderText(shown.bubble, text);
    this.scrollToEnd();
  }

  announce(role: ChatMessage["role"], text: string): void {
    this.announcer.textContent = `${role === "customer" ? speaker.customer : role === "agent" ? speaker.agent : this.name}: ${text}`;
  }

  private scrollToEnd(): void {
    this.list.scrollTop = this.list.scrollHeight;
  }
}
