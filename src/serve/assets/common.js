"use strict";
// What both pages share: talking to the API, and saving text as a file.

const tictac = {
  /** POSTs JSON; answers the HTTP status and the JSON reply. */
  async post(path, body) {
    let response;
    try {
      response = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    } catch (e) {
      return { status: 0, data: { error: "the server cannot be reached (" + e.message + ")" } };
    }
    let data;
    try {
      data = await response.json();
    } catch (e) {
      data = { error: "the server answered " + response.status };
    }
    return { status: response.status, data };
  },

  /** Offers `text` as a download called `name`. */
  download(name, text) {
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  },

  /** Local date and time as YYYY-MM-DD-HHMMSS, for file names. */
  stamp(date = new Date()) {
    const two = (n) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}-` +
      `${two(date.getHours())}${two(date.getMinutes())}${two(date.getSeconds())}`;
  },

  /** True when a key press belongs to a text field, not to the page. */
  typing(event) {
    const t = event.target;
    return event.ctrlKey || event.metaKey || event.altKey ||
      (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName)));
  },
};
