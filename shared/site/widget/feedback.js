/*
 * 👍/👎 under an answer: POST /feedback {answer_id, rating, reason?, comment?}. 👍 is sent
 * at once; 👎 opens the reasons and a comment first.
 */

import { PREFIX, el, toggle } from "./dom.js";
import { format } from "./strings.js";

const REASONS = ["incorrect", "outdated", "missing", "unclear", "other"];

// Thumbs drawn as SVG (Material Icons' thumb_up/thumb_down, Apache-2.0): an emoji is a
// blank box where no emoji font is installed.
const THUMBS = {
  up: "M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z",
  down: "M15 3H6c-.83 0-1.54.5-1.84 1.22l-3.02 7.05c-.09.23-.14.47-.14.73v2c0 1.1.9 2 2 2h6.31l-.95 4.57-.03.32c0 .41.17.79.44 1.06L9.83 23l6.59-6.59c.36-.36.58-.86.58-1.41V5c0-1.1-.9-2-2-2zm4 0v12h4V3h-4z"
};

function voteButton(rating, text, label) {
  const button = toggle(PREFIX + "-vote " + PREFIX + "-vote-" + rating, null, label);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "18");
  svg.setAttribute("height", "18");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", THUMBS[rating]);
  path.setAttribute("fill", "currentColor");
  svg.appendChild(path);
  button.appendChild(svg);
  button.appendChild(el("span", PREFIX + "-vote-text", text));
  return button;
}

// 👎's second step, hidden until then: one reason (a chip pressed again is unchosen), a
// comment, Send. `chosen.reason` is the chip pressed, if any.
function reasonsBox(t, id) {
  const more = el("div", PREFIX + "-feedback-more");
  more.hidden = true;
  const legend = el("p", PREFIX + "-feedback-legend", t.reasonsLegend);
  legend.id = id + "-reasons";
  const chips = el("div", PREFIX + "-chips");
  chips.setAttribute("role", "group");
  chips.setAttribute("aria-labelledby", legend.id);
  const chosen = { reason: null };
  REASONS.forEach((reason) => {
    const chip = toggle(PREFIX + "-chip", t.reasons[reason]);
    chip.setAttribute("data-reason", reason);
    chip.addEventListener("click", () => {
      const on = chosen.reason !== reason;
      chosen.reason = on ? reason : null;
      Array.prototype.forEach.call(chips.children, (other) => {
        other.setAttribute("aria-pressed", other === chip && on ? "true" : "false");
      });
    });
    chips.appendChild(chip);
  });
  const label = el("label", PREFIX + "-label", t.comment);
  label.htmlFor = id + "-comment";
  const comment = el("textarea", PREFIX + "-comment");
  comment.id = id + "-comment";
  comment.rows = 2;
  comment.maxLength = 2000;
  const send = el("button", PREFIX + "-feedback-send", t.send);
  send.type = "button";
  more.appendChild(legend);
  more.appendChild(chips);
  more.appendChild(label);
  more.appendChild(comment);
  more.appendChild(send);
  return { more: more, chips: chips, comment: comment, send: send, chosen: chosen };
}

export function feedbackBlock(w, answerId, question) {
  const t = w.t;
  const id = w.panel.id + "-fb";
  const box = el("div", PREFIX + "-feedback");
  box.setAttribute("role", "group");
  box.setAttribute("aria-labelledby", id + "-q");
  const ask = el("p", PREFIX + "-feedback-q", t.feedbackAsk);
  ask.id = id + "-q";
  const up = voteButton("up", t.yes, t.up);
  const down = voteButton("down", t.no, t.down);
  const votes = el("div", PREFIX + "-votes");
  votes.appendChild(ask);
  votes.appendChild(up);
  votes.appendChild(down);
  const { more, chips, comment, send, chosen } = reasonsBox(t, id);
  const said = el("p", PREFIX + "-feedback-status");
  said.setAttribute("role", "status");
  said.setAttribute("aria-live", "polite");

  const enable = (on) => {
    up.disabled = down.disabled = send.disabled = !on;
  };
  const post = (body, done) => {
    body.answer_id = answerId;
    if (question) {
      body.question = question;
    }
    enable(false);
    fetch(w.config.feedbackUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body)
    })
      .then((response) => {
        if (response.ok) {
          said.textContent = done;
          more.hidden = true;
        } else {
          said.textContent = format(t.feedbackFailed, { status: response.status });
          enable(true);
        }
      })
      .catch(() => {
        said.textContent = t.feedbackNetwork;
        enable(true);
      });
  };

  up.addEventListener("click", () => {
    up.setAttribute("aria-pressed", "true");
    down.setAttribute("aria-pressed", "false");
    more.hidden = true;
    post({ rating: "up" }, t.thanks);
  });
  down.addEventListener("click", () => {
    down.setAttribute("aria-pressed", "true");
    up.setAttribute("aria-pressed", "false");
    more.hidden = false;
    chips.firstChild.focus();
  });
  send.addEventListener("click", () => {
    const body = { rating: "down" };
    if (chosen.reason) {
      body.reason = chosen.reason;
    }
    if (comment.value.trim()) {
      body.comment = comment.value.trim();
    }
    post(body, t.thanksDown);
  });

  box.appendChild(votes);
  box.appendChild(more);
  box.appendChild(said);
  return box;
}
