/*
 * The server-sent events client: a response body read as `event:`/`data:` blocks, each
 * `data` JSON, handed on as they arrive. No DOM here: live.js shows them.
 */

// One event block: {name, data}, or null when it has no data or its data is not JSON.
export function parseEvent(block) {
  let name = "message";
  const data = [];
  block.split("\n").forEach((line) => {
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") {
      name = value;
    } else if (field === "data") {
      data.push(value);
    }
  });
  if (!data.length) {
    return null;
  }
  try {
    return { name: name, data: JSON.parse(data.join("\n")) };
  } catch (err) {
    return null;
  }
}

// Reads `reader` to its end, or until `onEvent(name, data)` returns true (the last
// event: the rest of the body is cancelled). Resolves to whether that event came.
export function readEvents(reader, onEvent) {
  const decoder = new TextDecoder();
  let buffer = "";
  let ended = false;
  const pump = () =>
    reader.read().then((chunk) => {
      if (chunk.done) {
        return ended;
      }
      buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const event = parseEvent(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
        if (event && onEvent(event.name, event.data)) {
          ended = true;
        }
      }
      return ended ? reader.cancel().then(() => true) : pump();
    });
  return pump();
}
