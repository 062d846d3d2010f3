import { builder } from "../builder.js";
import "./agents.js";
import "./analytics.js";
import "./api-keys.js";
import "./channels.js";
import "./chat.js";
import "./conversations.js";
import "./escalations.js";
import "./evaluations.js";
import "./intents.js";
import "./jobs.js";
import "./knowledge.js";
import "./session.js";
import "./tenant.js";
import "./timeline.js";
import "./voices.js";
import "./widget.js";

export const schema = builder.toSchema({ sortSchema: true });
