/*
 * A whole answer in the panel: the hedge when the evidence is weak, the rendered answer,
 * its sources, 👍/👎 and the model's line; the turn is kept for the conversation.
 */

import { remember } from "./conversation.js";
import { PREFIX, el } from "./dom.js";
import { feedbackBlock } from "./feedback.js";
import { renderMarkdown } from "./markdown.js";
import { sourcesSection } from "./sources.js";
import { format } from "./strings.js";

// `data`: the contract's answer body (the whole response, or the stream's `done`).
export function showAnswer(w, data) {
  const t = w.t;
  const tutor = w.config.mode === "tutor";
  const sources = Array.isArray(data.sources) ? data.sources.filter((s) => s && typeof s === "object") : [];
  const ctx = { root: w.config.root, sources: sources, t: t };
  const answer = el("div", PREFIX + "-markdown");
  // Weak evidence (the contract's confidence "low"): a notice before the answer, and the
  // answer itself marked, so nobody mistakes the closest passages for an answer.
  if (data.confidence === "low" && sources.length) {
    const notice = el("p", PREFIX + "-hedge", t.lowConfidence);
    notice.setAttribute("role", "note");
    notice.id = w.panel.id + "-hedge";
    answer.className += " " + PREFIX + "-markdown-low";
    answer.setAttribute("aria-describedby", notice.id);
    w.answer.appendChild(notice);
  }
  answer.appendChild(renderMarkdown(data.answer, ctx));
  w.answer.appendChild(answer);
  if (!tutor && w.lastQuestion) {
    remember(w, w.lastQuestion, data.answer);
  }
  if (!tutor) {
    w.answer.appendChild(sourcesSection(sources, ctx));
  }
  if (!tutor && typeof data.answer_id === "string" && data.answer_id) {
    w.answer.appendChild(feedbackBlock(w, data.answer_id, w.lastQuestion));
  }
  if (typeof data.model === "string" && typeof data.duration_ms === "number") {
    const seconds = (data.duration_ms / 1000).toFixed(1);
    w.answer.appendChild(el("p", PREFIX + "-meta", format(t.meta, { model: data.model, s: seconds })));
  }
}
