import { builder } from "../builder.js";
import "./api-keys.js";
import "./channels.js";
import "./chat.js";
import "./conversations.js";
import "./intents.js";
import "./jobs.js";
import "./knowledge.js";
import "./tenant.js";
import "./voices.js";
import "./widget.js";

export const schema = builder.toSchema({ sortSchema: true });
