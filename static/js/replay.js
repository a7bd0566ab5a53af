// Replay keyboard: ← / → step, Home / End jump. Each key clicks the matching link, so
// the keys do exactly what the buttons do (an htmx request, or a plain page load).
(function () {
  const keys = {ArrowLeft: "replay-prev", ArrowRight: "replay-next", Home: "replay-first", End: "replay-last"};
  let busy = false;
  let queued = null;  // a key pressed while a step loads runs once that step has settled
  function go(id) {
    const link = document.getElementById(id);
    if (!link || link.tagName !== "A") return;
    busy = true;  // one step at a time: the next key waits for this frame
    link.click();
  }
  document.addEventListener("keydown", (event) => {
    const id = keys[event.key];
    if (!id || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName))) return;
    event.preventDefault();
    if (busy) { queued = id; return; }
    go(id);
  });
  function done() {
    busy = false;
    if (queued) { const id = queued; queued = null; go(id); }
  }
  document.addEventListener("htmx:afterSettle", done);
  document.addEventListener("htmx:responseError", done);
  document.addEventListener("htmx:sendError", done);
  // The perspective switch keeps the current step.
  document.addEventListener("htmx:afterSettle", () => {
    const section = document.getElementById("replay");
    const field = document.querySelector("#replay-perspective input[name=step]");
    if (section && field) field.value = section.dataset.step;
  });
})();
