/*
 * The conversation: each answered question is kept and sent with the next as `history`
 * (the contract's limit, 6 turns), its question listed above the answer, until
 * "New conversation".
 */

import { PREFIX, el } from "./dom.js";
import { say } from "./panel.js";

export const MAX_TURNS = 6; // the contract's limit on `history`
const MAX_TURN_ANSWER = 20000;

export function remember(w, question, answer) {
  w.history.push({ question: question, answer: answer.slice(0, MAX_TURN_ANSWER) });
  w.history = w.history.slice(-MAX_TURNS);
  w.thread.textContent = "";
  for (let i = 0; i < w.history.length - 1; i++) {
    w.thread.appendChild(el("li", PREFIX + "-turn", w.history[i].question));
  }
  w.thread.hidden = w.history.length < 2;
  w.newThread.hidden = false;
}

export function forget(w) {
  w.history = [];
  w.thread.textContent = "";
  w.thread.hidden = true;
  w.newThread.hidden = true;
  w.answer.textContent = "";
  say(w, "", null);
}
