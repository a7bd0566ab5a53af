// The replay without page loads: a step's frame is fetched alone (the view answers the
// `frame` partial to a request marked HX-Request) and swapped in, the controls and the
// address follow, so every step keeps a link of its own. Every control is also a plain
// link or a GET form, so without this script each one is a page load.
(function () {
  const controls = document.getElementById("replay-controls");
  if (!controls || !window.fetch || !window.history.pushState) return;
  const $ = (id) => document.getElementById(id);
  const links = {first: $("replay-first"), prev: $("replay-prev"), next: $("replay-next"), last: $("replay-last")};
  const slider = $("replay-step"), number = $("replay-step-number"), permalink = $("replay-permalink");
  const play = $("replay-play"), speed = $("replay-speed"), announcer = $("replay-announce");
  const frame = () => $("replay");
  const shown = () => Number(frame().dataset.step);
  const total = () => Number(frame().dataset.total);

  let wanted = shown();  // the step asked for last; a fetch under way may be for an older one
  let loading = false;
  let playing = false;
  let timer = null;

  function urlFor(step) {
    const url = new URL(window.location.href);
    url.searchParams.set("step", step);
    url.hash = "";
    return url.href;
  }

  function clamp(step) { return Math.max(1, Math.min(total(), step)); }

  // The controls outside the frame say where the frame now is.
  function sync(step) {
    const last = total();
    const targets = {first: step > 1 ? 1 : null, prev: step > 1 ? step - 1 : null,
                     next: step < last ? step + 1 : null, last: step < last ? last : null};
    const focused = document.activeElement;
    for (const [name, link] of Object.entries(links)) {
      if (targets[name] === null) {
        link.removeAttribute("href");
        link.setAttribute("aria-disabled", "true");
      } else {
        link.href = urlFor(targets[name]);
        link.removeAttribute("aria-disabled");
      }
    }
    // A disabled link cannot keep the focus: hand it to the way back.
    if (focused && focused.classList.contains("step-link") && !focused.hasAttribute("href")) {
      (step > 1 ? links.prev : links.next).focus();
    }
    slider.max = last;
    slider.value = step;
    number.textContent = step;
    permalink.href = urlFor(step);
    const field = document.querySelector("#replay-perspective input[name=step]");
    if (field) field.value = step;
  }

  // Fetches the wanted step and swaps it in; steps asked for meanwhile are fetched after it,
  // one request at a time.
  async function load(push) {
    loading = true;
    const step = wanted;
    const url = urlFor(step);
    let html;
    try {
      const response = await fetch(url, {headers: {"HX-Request": "true"}, credentials: "same-origin"});
      if (!response.ok) throw new Error(String(response.status));
      html = await response.text();
    } catch (error) {
      // Let the page load say what went wrong (logged out, no longer allowed...).
      pause();
      window.location.href = url;
      return;
    }
    // Parsed as a document of its own (it runs nothing), then the step's section moved in.
    const parsed = new DOMParser().parseFromString(html, "text/html");
    const fresh = document.adoptNode(parsed.querySelector("#replay"));
    const old = frame();
    const list = old.querySelector("#discard-list");
    if (list && list.open) fresh.querySelector("#discard-list")?.setAttribute("open", "");
    // The review under the table stays open or closed as the reader left it.
    const review = old.querySelector("#review-summary");
    if (review) fresh.querySelector("#review-summary")?.toggleAttribute("open", review.open);
    old.replaceWith(fresh);
    // The review box in the frame asks for itself and posts with htmx: its attributes are
    // read only from what htmx has processed.
    if (window.htmx) window.htmx.process(fresh);
    const now = shown();
    // Playing replaces the address instead of adding to the history: the back button then
    // leaves the replay's steps one by one only where the reader stepped by hand.
    if (push === "push") window.history.pushState({step: now}, "", urlFor(now));
    else if (push === "replace") window.history.replaceState({step: now}, "", urlFor(now));
    sync(now);
    loading = false;
    if (wanted !== now) { load(push); return; }
    if (playing) {
      if (now >= total()) pause(); else schedule();
    } else {
      // Read as a screen reader reads the line: without what it hides (a mark's "??", whose
      // word is read).
      const move = fresh.querySelector("#replay-move")?.cloneNode(true);
      move?.querySelectorAll("[aria-hidden='true']").forEach((hidden) => hidden.remove());
      announcer.textContent = `Step ${now} of ${total()}. ${move ? move.textContent.replace(/\s+/g, " ").trim() : ""}`;
    }
  }

  function go(step, push) {
    wanted = clamp(step);
    if (!loading && wanted !== shown()) load(push);
  }

  // By hand: the automatic play stops, and the step gets its own history entry.
  function stepBy(name) {
    pause();
    const base = wanted;
    go({first: 1, prev: base - 1, next: base + 1, last: total()}[name], "push");
  }

  function setPlaying(on) {
    playing = on;
    play.querySelector("use").setAttribute("href", on ? "#icon-pause" : "#icon-play");
    play.querySelector(".label").textContent = on ? "Pause" : "Play";
    play.setAttribute("aria-pressed", on ? "true" : "false");
  }
  function pause() {
    clearTimeout(timer);
    if (playing) setPlaying(false);
  }
  function delay() { return 1000 / (Number(speed.value) || 1); }
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(() => { if (playing && !loading) go(wanted + 1, "replace"); }, delay());
  }
  function start() {
    if (total() <= 1) return;
    setPlaying(true);
    // From the end, playing starts again at the deal.
    if (shown() >= total()) go(1, "replace"); else schedule();
  }

  controls.addEventListener("click", (event) => {
    const link = event.target.closest("a.step-link");
    if (!link || event.button !== 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    if (!link.hasAttribute("href")) return;
    stepBy(Object.keys(links).find((name) => links[name] === link));
  });
  // The review's links to a step (the chart's markers, the costliest decisions) step the
  // replay in place, as the controls do; without this script each is a page load.
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("#replay a[data-step]");
    if (!link || event.button !== 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const step = Number(link.dataset.step);
    if (!step) return;
    event.preventDefault();
    pause();
    go(step, "push");
  });
  play.addEventListener("click", () => { if (playing) pause(); else start(); });
  speed.addEventListener("change", () => { if (playing) schedule(); });
  slider.addEventListener("input", () => { number.textContent = slider.value; });
  slider.addEventListener("change", () => { pause(); go(Number(slider.value), "push"); });
  $("replay-jump").addEventListener("submit", (event) => {
    event.preventDefault();
    pause();
    go(Number(slider.value), "push");
  });
  $("replay-go").hidden = true;  // the slider moves the replay as it is let go
  $("replay-auto").hidden = false;

  const keys = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last"};
  document.addEventListener("keydown", (event) => {
    const name = keys[event.key];
    if (!name || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = event.target;
    if (target && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName))) return;
    event.preventDefault();
    stepBy(name);
  });

  window.history.replaceState({step: shown()}, "", window.location.href);
  window.addEventListener("popstate", (event) => {
    const state = event.state;
    if (!state || typeof state.step !== "number") return;
    pause();
    go(state.step, null);
  });
})();
