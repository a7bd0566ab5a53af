// The table's motion and its optional sound (docs/table.md, "Motion and sound").
//
// table.js fires `table:beforeswap` just before a push's fragments are swapped in and
// `table:swapped` right after. Before, this notes where things are (the plates and their
// counts, the piles, the cards of the reader's hand); after, it compares and shows the
// change as cards moving: FLIP with the Web Animations API, from the old place to the new.
// Who moved and who traded comes from the server's marks on the plates (`last-acted`,
// `just-traded`), so nothing here needs to know the moves themselves, and nothing shows a
// card the reader may not see: only a played card (public) travels face up, and only the
// reader's own cards are theirs to see arrive in their hand.
(function () {
  "use strict";
  const page = document.getElementById("table-page");
  if (!page) return;

  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
  const canAnimate = typeof Element.prototype.animate === "function";
  const DURATION = 400;
  const QUICK = 200;            // when pushes come faster than their motion
  const EASE = "cubic-bezier(.25, .8, .3, 1)";
  const MAX_BACKS = 3;          // a penalty of 8 flies 3 backs, not 8
  const STAGGER = 70;

  let before = null;
  let layer = null;
  let lastMotionAt = -Infinity;
  // Element animations on pushed elements, kept with what found them: a push that changes
  // nothing (a move's own answer arriving after its push) replaces the elements, and then
  // the animation carries on on the new ones instead of ending early.
  let running = [];
  let flights = [];             // the clones flying on the layer

  // --- reading the table ----------------------------------------------------------------

  function box(el) {
    const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, width: r.width, height: r.height };
  }
  function number(text) {
    const n = parseInt(text, 10);
    return Number.isNaN(n) ? null : n;
  }
  function handCards() {
    return Array.from(document.querySelectorAll("#hand-form .hand-card[id]"));
  }
  function codeOf(button) {
    const m = /^card-\d+-(.+)$/.exec(button.id);
    return m ? m[1] : button.id;
  }

  function read() {
    const plates = {};
    document.querySelectorAll("#table-seats .plate[id]").forEach((p) => {
      const count = p.querySelector(".count");
      plates[p.id] = {
        el: p, box: box(p), count: count ? number(count.textContent) : null,
        last: p.classList.contains("last-acted"), traded: p.classList.contains("just-traded"),
      };
    });
    const pile = document.querySelector("#table-seats .draw-pile .back, #table-seats .draw-pile");
    const top = document.querySelector("#table-seats .discard .card.top");
    const list = document.querySelector("#discard-list ol");
    const round = document.querySelector("#table-status .round strong");
    return {
      seq: parseInt(page.dataset.seq, 10) || 0,
      plates: plates,
      pile: pile ? box(pile) : null,
      top: top, topBox: top ? box(top) : null,
      topName: top ? top.getAttribute("aria-label") : null,
      discard: list ? list.children.length : null,
      hand: handCards().map((b) => ({ el: b, id: b.id, code: codeOf(b), box: box(b) })),
      myTurn: !!document.querySelector("#table-status .your-turn"),
      round: round ? round.textContent : null,
    };
  }

  // --- animating --------------------------------------------------------------------------

  function motionLayer() {
    if (!layer || !layer.isConnected) {
      layer = document.createElement("div");
      layer.className = "motion-layer";
      layer.setAttribute("aria-hidden", "true");
      document.body.appendChild(layer);
    }
    return layer;
  }

  function centred(b, width, height) {
    return {
      left: b.left + b.width / 2 - width / 2, top: b.top + b.height / 2 - height / 2,
      width: width, height: height,
    };
  }

  function transformFrom(from, to) {
    const dx = from.left - to.left, dy = from.top - to.top;
    return `translate(${dx}px, ${dy}px) scale(${from.width / to.width}, ${from.height / to.height})`;
  }

  // A clone flying on the layer from box `from` to box `to` (viewport boxes): it sits at
  // `to` and is animated from `from`, so whatever happens to the page it ends where it landed.
  function fly(content, from, to, opts) {
    const card = document.createElement("div");
    card.className = "motion-card" + (opts.kind ? " " + opts.kind : "");
    card.dataset.seq = page.dataset.seq;   // which push it shows (a later one ends it)
    card.appendChild(content);
    card.style.left = to.left + "px";
    card.style.top = to.top + "px";
    card.style.width = to.width + "px";
    card.style.height = to.height + "px";
    motionLayer().appendChild(card);
    const start = transformFrom(from, to);
    const anim = card.animate([
      { transform: start, opacity: opts.fadeIn ? 0 : 1 },
      { transform: start, opacity: 1, offset: 0.08 },
      { transform: "none", opacity: 1 },
    ], { duration: opts.duration, delay: opts.delay || 0, easing: EASE, fill: "both" });
    const done = () => {
      card.remove();
      flights = flights.filter((f) => f !== entry);
    };
    const entry = { anim: anim, el: card };
    anim.onfinish = done;
    anim.oncancel = done;
    flights.push(entry);
    return anim;
  }

  // An animation of a pushed element, found again by `selector` after a later swap.
  function track(el, selector, keyframes, options) {
    const entry = { selector: selector, keyframes: keyframes, options: options, el: el, anim: null };
    start(entry, 0);
    running.push(entry);
  }
  function start(entry, time) {
    const anim = entry.el.animate(entry.keyframes, entry.options);
    anim.currentTime = time;
    const done = () => { if (entry.anim === anim) running = running.filter((e) => e !== entry); };
    anim.onfinish = done;
    anim.oncancel = done;
    entry.anim = anim;
  }
  function carryOver() {
    running.slice().forEach((entry) => {
      const el = document.querySelector(entry.selector);
      if (!el) { entry.anim.cancel(); return; }
      if (el === entry.el) return;
      const time = entry.anim.currentTime || 0;
      const old = entry.anim;
      entry.el = el;
      start(entry, time);
      old.cancel();
    });
  }
  function endAll() {
    running.slice().forEach((entry) => entry.anim.cancel());
    // At once: a cancelled animation's own handler runs only after this push is shown.
    flights.slice().forEach((f) => { f.anim.cancel(); f.el.remove(); });
    running = [];
    flights = [];
  }

  function back() {
    const span = document.createElement("span");
    span.className = "motion-back";
    return span;
  }

  // A card back's size on the felt: the draw pile's, a little smaller in flight.
  function backSize() {
    const pile = document.querySelector("#table-seats .draw-pile .back");
    const w = pile ? pile.getBoundingClientRect().width : 48;
    const h = pile ? pile.getBoundingClientRect().height : 68;
    return [w * 0.62, h * 0.62];
  }

  // --- what changed, as motion ----------------------------------------------------------

  function show(b, a, quick) {
    const duration = quick ? QUICK : DURATION;
    const seat = page.dataset.seat;
    const me = seat === "spectator" || seat === undefined ? null : "seat-" + seat;
    const ids = Object.keys(a.plates);
    const players = ids.length;
    const delta = {};
    ids.forEach((id) => {
      const was = b.plates[id], now = a.plates[id];
      delta[id] = was && was.count !== null && now.count !== null ? now.count - was.count : 0;
    });
    const actor = ids.find((id) => a.plates[id].last) || null;
    const [bw, bh] = backSize();

    // The hand: which cards left it, which came, which only moved over.
    const left = {};
    b.hand.forEach((c) => { (left[c.code] = left[c.code] || []).push(c); });
    const kept = [], arrived = [];
    a.hand.forEach((c) => {
      const old = left[c.code] && left[c.code].shift();
      if (old) kept.push([old, c]); else arrived.push(c);
    });
    const gone = [].concat(...Object.values(left));

    let moved = false;
    const played = b.discard !== null && a.discard !== null
      ? a.discard > b.discard : a.topName !== b.topName;
    if (played && a.top && a.topBox) {
      const face = a.top.querySelector(".face");
      let from = null;
      if (actor && actor === me && gone.length) from = gone[0].box;
      else if (actor && b.plates[actor]) {
        const w = a.topBox.width * 0.6;
        from = centred(b.plates[actor].box, w, w * a.topBox.height / a.topBox.width);
      }
      if (face && from) {
        // The old top stays where it was until the new card lands on it.
        if (b.top && b.topBox) {
          const ghost = b.top.cloneNode(true);
          ghost.removeAttribute("role");
          ghost.removeAttribute("aria-label");
          fly(ghost, b.topBox, b.topBox, { duration: duration, kind: "ghost" });
        }
        fly(face.cloneNode(true), from, a.topBox, { duration: duration, kind: "to-discard" });
        track(a.top, "#table-seats .discard .card.top",
              [{ opacity: 0 }, { opacity: 0 }], { duration: duration });
        moved = true;
      }
    }

    // Trades: between the two partners' plates, face down, whichever way the cards went.
    const traded = ids.filter((id) => a.plates[id].traded);
    const seen = new Set();
    traded.forEach((id) => {
      const n = parseInt(id.slice(5), 10);
      const partner = "seat-" + ((n + players / 2) % players);
      if (seen.has(id) || !a.plates[partner] || !b.plates[id] || !b.plates[partner]) return;
      seen.add(id); seen.add(partner);
      const pairs = [];
      if (delta[id] < 0) pairs.push([id, partner, -delta[id]]);
      else if (delta[partner] < 0) pairs.push([partner, id, -delta[partner]]);
      else pairs.push([id, partner, 1], [partner, id, 1]);
      pairs.forEach(([from, to, k]) => {
        for (let i = 0; i < Math.min(k, MAX_BACKS); i++) {
          fly(back(), centred(b.plates[from].box, bw, bh), centred(a.plates[to].box, bw, bh),
              { duration: duration, delay: quick ? 0 : i * STAGGER, kind: "trade", fadeIn: true });
        }
      });
      moved = true;
    });

    // Draws: from the draw pile to the plate of whoever's count grew (not by a trade).
    if (a.pile) {
      ids.forEach((id) => {
        if (delta[id] <= 0 || seen.has(id) || !a.plates[id]) return;
        if (id === me && arrived.length) return;   // the reader's own cards fly into the hand
        for (let i = 0; i < Math.min(delta[id], MAX_BACKS); i++) {
          fly(back(), centred(b.pile || a.pile, bw / 0.62, bh / 0.62), centred(a.plates[id].box, bw, bh),
              // A penalty follows the card that gave it: its draws leave a moment later.
              { duration: duration, delay: quick ? 0 : (i + (played ? 2 : 0)) * STAGGER,
                kind: "draw" });
        }
        moved = true;
      });
    }

    // The reader's own hand: the cards that stayed slide to their new places; new ones come
    // from the draw pile (a draw) or from the reader's plate (a trade).
    kept.forEach(([old, now]) => {
      const dx = old.box.left - now.box.left, dy = old.box.top - now.box.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
      track(now.el, "#" + CSS.escape(now.id),
            [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
            { duration: duration, easing: EASE });
      moved = true;
    });
    const fromPlate = me && seen.has(me) && b.plates[me];
    const fromPile = me && delta[me] > 0 && !seen.has(me) && (b.pile || a.pile);
    arrived.slice(0, 10).forEach((c, i) => {
      const source = fromPlate ? centred(b.plates[me].box, c.box.width * 0.6, c.box.height * 0.6)
        : fromPile ? centred(b.pile || a.pile, c.box.width, c.box.height) : null;
      if (!source) return;
      const delay = quick ? 0 : i * STAGGER;
      track(c.el, "#" + CSS.escape(c.id), [
        { transform: transformFrom(source, c.box), opacity: fromPlate ? 0 : 1 },
        { transform: "none", opacity: 1 },
      ], { duration: duration, delay: delay, easing: EASE, fill: "backwards" });
      moved = true;
    });
    return moved;
  }

  document.addEventListener("table:beforeswap", () => {
    before = read();
  });

  document.addEventListener("table:swapped", () => {
    const b = before;
    before = null;
    if (!b) return;
    const a = read();
    sound(b, a);
    if (!canAnimate || reduced.matches) return;
    const changed = a.seq !== b.seq;
    if (!changed) { carryOver(); return; }
    endAll();
    // A new round or a jump over several moves: the change is no one move, so it is shown
    // as it is, without motion.
    if (a.round !== b.round || a.seq > b.seq + 1 || !Object.keys(b.plates).length) return;
    const now = performance.now();
    const quick = now - lastMotionAt < DURATION;
    if (show(b, a, quick)) lastMotionAt = now;
  });

  reduced.addEventListener("change", () => { if (reduced.matches) endAll(); });

  // --- sound: off unless the player turns it on ------------------------------------------

  const KEY = "wct-sound";
  const toggle = document.getElementById("sound-toggle");
  let soundOn = false;
  let audio = null;
  try { soundOn = localStorage.getItem(KEY) === "on"; } catch (err) { soundOn = false; }

  function showToggle() {
    if (!toggle) return;
    toggle.hidden = false;
    toggle.setAttribute("aria-pressed", soundOn ? "true" : "false");
    toggle.textContent = soundOn ? "Sound: on" : "Sound: off";
  }

  // Browsers start audio only from a gesture: the context is made in one (the toggle, or
  // the first click or key on a page that remembered the sound as on), never before.
  function wake() {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    if (!audio) audio = new Ctx();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  }
  function onGesture() {
    if (soundOn) wake();
  }
  document.addEventListener("pointerdown", onGesture, { capture: true });
  document.addEventListener("keydown", onGesture, { capture: true });

  function note(freq, start, length, volume, type, endFreq) {
    const ctx = audio;
    const t = ctx.currentTime + start;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = type;
    osc.frequency.setValueAtTime(freq, t);
    if (endFreq) osc.frequency.exponentialRampToValueAtTime(endFreq, t + length);
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(volume, t + 0.012);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t);
    osc.stop(t + length + 0.02);
  }
  function chime(delay) {          // your turn: two soft rising notes
    note(587.33, delay, 0.22, 0.07, "sine");
    note(880, delay + 0.11, 0.3, 0.06, "sine");
  }
  function click() {               // a card laid down: short and low
    note(420, 0, 0.06, 0.035, "triangle", 180);
  }

  function sound(b, a) {
    if (!soundOn || !audio || audio.state !== "running" || a.seq === b.seq) return;
    const played = b.discard !== null && a.discard !== null ? a.discard > b.discard
      : a.topName !== b.topName;
    if (played && a.round === b.round) click();
    if (a.myTurn && !b.myTurn) chime(played ? 0.12 : 0);
  }

  if (toggle) {
    toggle.addEventListener("click", () => {
      soundOn = !soundOn;
      try { localStorage.setItem(KEY, soundOn ? "on" : "off"); } catch (err) { /* private mode */ }
      showToggle();
      if (soundOn && wake()) chime(0.02);   // so the player hears what it sounds like
    });
    showToggle();
  }
})();
