/* mapgen annotation page: one question at a time, answers kept in localStorage, exported as predictions JSONL.
   Every text is shown with textContent (never parsed as HTML); no network; no inline script (see the page's CSP). */
"use strict";

(function () {
  const KIT = window.MAPGEN_KIT || { kit: "kit", questions: [] };
  const QUESTIONS = KIT.questions;
  const STORE = "mapgen-human:" + KIT.kit;
  const $ = (id) => document.getElementById(id);
  let state = load();
  let zoom = 1;
  let shownAt = Date.now();
  let draft = [];

  function load() {
    try {
      const saved = JSON.parse(window.localStorage.getItem(STORE) || "null");
      if (saved && typeof saved === "object" && saved.answers) return saved;
    } catch (err) { report(err); }
    return { annotator: "", index: 0, answers: {}, timer: false };
  }

  function persist() {
    try { window.localStorage.setItem(STORE, JSON.stringify(state)); } catch (err) { report(err); }
  }

  function report(err) { $("errors").textContent += String(err && err.message ? err.message : err) + "\n"; }

  function el(tag, text, attrs) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    return node;
  }

  function button(text, onClick, attrs) {
    const node = el("button", text, Object.assign({ type: "button" }, attrs || {}));
    node.addEventListener("click", onClick);
    return node;
  }

  // ------------------------------------------------------------------ progress and navigation

  function answered() { return Object.keys(state.answers).length; }

  function showProgress() {
    const n = QUESTIONS.length;
    $("progress").max = Math.max(n, 1);
    $("progress").value = answered();
    $("progress-text").textContent = answered() + " of " + n + " answered; question " +
      Math.min(state.index + 1, n) + " of " + n;
  }

  function go(index) {
    state.index = Math.max(0, Math.min(index, QUESTIONS.length));
    persist();
    show();
  }

  function nextOpen(from) {
    for (let i = from; i < QUESTIONS.length; i++) if (!(QUESTIONS[i].question_id in state.answers)) return i;
    for (let i = 0; i < from; i++) if (!(QUESTIONS[i].question_id in state.answers)) return i;
    return QUESTIONS.length;
  }

  function show() {
    showProgress();
    const done = state.index >= QUESTIONS.length;
    $("work").hidden = done;
    $("done").hidden = !done;
    document.body.dataset.status = done ? "done" : "question";
    if (done) return;
    const q = QUESTIONS[state.index];
    document.body.dataset.question = q.question_id;
    document.body.dataset.answerType = q.answer_type;
    $("question").textContent = q.question;
    $("question").setAttribute("lang", q.language || "en");
    $("meta").textContent = "Question " + (state.index + 1) + " · " + label(q.answer_type);
    $("map").src = q.image;
    $("map").alt = "Map for question " + (state.index + 1);
    setZoom(1);
    const previous = state.answers[q.question_id];
    $("saved").textContent = previous ? "Saved answer: " + describe(previous.value) : "";
    draft = previous && Array.isArray(previous.value) ? previous.value.map((g) => (Array.isArray(g) ? g[0] : g)) : [];
    renderWidget(q, previous ? previous.value : null);
    shownAt = Date.now();
  }

  function label(type) {
    return { binary: "yes or no", count: "a number", single: "one answer", list: "a list",
      ranking: "an ordered list", range: "a range" }[type] || type;
  }

  function describe(value) {
    if (Array.isArray(value)) return value.map((g) => (Array.isArray(g) ? g.join(" = ") : g)).join(", ");
    return String(value);
  }

  function save(value) {
    const q = QUESTIONS[state.index];
    if (value === null || value === "" || (Array.isArray(value) && !value.length)) {
      $("saved").textContent = "Give an answer first (or skip the question).";
      return;
    }
    const seconds = Math.round((Date.now() - shownAt) / 100) / 10;
    state.answers[q.question_id] = { value: value, seconds: seconds };
    go(nextOpen(state.index + 1));
  }

  // ------------------------------------------------------------------ answer widgets

  function renderWidget(q, previous) {
    const box = $("widget");
    box.replaceChildren();
    const build = { binary: binaryWidget, count: countWidget, single: singleWidget, list: listWidget,
      ranking: listWidget, range: rangeWidget }[q.answer_type] || singleWidget;
    build(box, q, previous);
    const first = box.querySelector("input, button");
    if (first) first.focus();
  }

  function binaryWidget(box, q, previous) {
    const group = el("div", null, { role: "group", "aria-label": "Answer", class: "choices" });
    for (const word of ["Yes", "No"]) {
      const b = button(word, () => save(word), { "data-answer": word, "aria-pressed": String(previous === word) });
      group.append(b);
    }
    box.append(group);
  }

  function textInput(box, id, text, attrs) {
    box.append(el("label", text, { for: id }));
    const input = el("input", null, Object.assign({ id: id, autocomplete: "off" }, attrs || {}));
    box.append(input);
    return input;
  }

  function countWidget(box, q, previous) {
    const input = textInput(box, "answer", "Your answer (a number)", { type: "number", step: "any" });
    if (previous !== null) input.value = previous;
    currentValue = () => (input.value.trim() === "" ? null : Number(input.value));
  }

  function suggestions(box, input, names, onPick) {
    const list = el("ul", null, { id: "suggestions", role: "listbox", "aria-label": "Suggestions" });
    box.append(list);
    input.setAttribute("aria-controls", "suggestions");
    input.addEventListener("input", () => {
      list.replaceChildren();
      const typed = input.value.trim().toLowerCase();
      if (!typed) return;
      for (const name of names.filter((n) => n.toLowerCase().includes(typed)).slice(0, 8)) {
        const item = el("li", null, { role: "option" });
        item.append(button(name, () => { onPick(name); list.replaceChildren(); }, { "data-name": name }));
        list.append(item);
      }
    });
  }

  function choices(q) { return [...(q.names || []), ...(q.ranges || [])]; }

  function singleWidget(box, q, previous) {
    const input = textInput(box, "answer", "Your answer (start typing a name)");
    if (previous !== null) input.value = previous;
    suggestions(box, input, choices(q), (name) => { input.value = name; input.focus(); });
    currentValue = () => input.value.trim() || null;
  }

  function listWidget(box, q) {
    const ranking = q.answer_type === "ranking";
    const input = textInput(box, "answer", ranking ? "Add the next name, first to last" : "Add a name");
    const add = (name) => {
      if (name && !draft.includes(name)) draft.push(name);
      input.value = "";
      drawItems();
      input.focus();
    };
    suggestions(box, input, choices(q), add);
    box.append(button("Add", () => add(input.value.trim()), { id: "add" }));
    const items = el(ranking ? "ol" : "ul", null, { id: "items", "aria-label": "Your answer" });
    box.append(items);
    function drawItems() {
      items.replaceChildren();
      draft.forEach((name, i) => {
        const li = el("li", null, { "data-name": name });
        li.append(el("span", name));
        if (ranking) {
          li.append(button("↑", () => move(i, -1), { "aria-label": "Move " + name + " up" }));
          li.append(button("↓", () => move(i, 1), { "aria-label": "Move " + name + " down" }));
        }
        li.append(button("×", () => { draft.splice(i, 1); drawItems(); }, { "aria-label": "Remove " + name }));
        items.append(li);
      });
    }
    function move(i, step) {
      const j = i + step;
      if (j < 0 || j >= draft.length) return;
      [draft[i], draft[j]] = [draft[j], draft[i]];
      drawItems();
    }
    drawItems();
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && input.value.trim()) {
        event.preventDefault();
        event.stopPropagation();
        add(input.value.trim());
      }
    });
    currentValue = () => (ranking ? draft.map((name) => [name]) : draft.slice());
  }

  function rangeWidget(box, q, previous) {
    if ((q.ranges || []).length) {
      const group = el("div", null, { role: "group", "aria-label": "Legend ranges", class: "choices" });
      for (const range of q.ranges) {
        group.append(button(range, () => save(range), { "data-answer": range, "aria-pressed": String(previous === range) }));
      }
      box.append(group);
    }
    const input = textInput(box, "answer", "Or type a range (e.g. 10M-20M)");
    if (previous !== null && !(q.ranges || []).includes(previous)) input.value = previous;
    currentValue = () => input.value.trim() || null;
  }

  let currentValue = () => null;

  // ------------------------------------------------------------------ zoom

  function setZoom(value) {
    zoom = Math.max(1, Math.min(value, 6));
    $("map").style.width = (zoom * 100) + "%";
    $("zoom-level").textContent = Math.round(zoom * 100) + " %";
  }

  // ------------------------------------------------------------------ export

  function exportAnswers() {
    const lines = QUESTIONS.filter((q) => q.question_id in state.answers).map((q) => JSON.stringify({
      question_id: q.question_id,
      prediction: JSON.stringify({ answer: state.answers[q.question_id].value }),
      annotator: state.annotator,
      seconds: state.answers[q.question_id].seconds,
    }));
    const blob = new Blob([lines.map((line) => line + "\n").join("")], { type: "application/jsonl" });
    const link = el("a", null, { download: (state.annotator || "annotator") + ".jsonl" });
    link.href = URL.createObjectURL(blob);
    document.body.append(link);
    link.click();
    link.remove();
    $("saved").textContent = "Exported " + lines.length + " answers.";
  }

  // ------------------------------------------------------------------ start, keys

  function begin() {
    const id = $("annotator").value.trim();
    if (!/^[\w.-]{1,64}$/.test(id)) {
      $("start-error").textContent = "Give an id of letters, digits, dots, dashes or underscores.";
      return;
    }
    state.annotator = id;
    state.timer = $("show-timer").checked;
    $("start").hidden = true;
    go(nextOpen(0));
  }

  function typing(target) { return target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA"); }

  function onKey(event) {
    if ($("start").hidden === false || state.index >= QUESTIONS.length) return;
    const q = QUESTIONS[state.index];
    if (event.altKey && event.key === "ArrowLeft") { event.preventDefault(); go(state.index - 1); return; }
    if (event.altKey && event.key === "ArrowRight") { event.preventDefault(); go(state.index + 1); return; }
    if (event.key === "Enter" && !(event.target && event.target.tagName === "BUTTON")) {
      event.preventDefault();
      save(currentValue());
      return;
    }
    if (typing(event.target) || event.altKey || event.ctrlKey || event.metaKey) return;
    const zooms = { "+": 1.25, "=": 1.25, "-": 0.8 };
    if (q.answer_type === "binary" && (event.key === "y" || event.key === "n")) {
      event.preventDefault();  // the key's character must not land in the next question's text box
      save(event.key === "y" ? "Yes" : "No");
    } else if (event.key in zooms || event.key === "0") {
      event.preventDefault();
      setZoom(event.key === "0" ? 1 : zoom * zooms[event.key]);
    }
  }

  function tick() {
    if (!state.timer || state.index >= QUESTIONS.length) return;
    $("timer").hidden = false;
    $("timer").textContent = "Time on this question: " + Math.round((Date.now() - shownAt) / 1000) + " s";
  }

  function init() {
    $("kit-name").textContent = "Map questions: " + KIT.kit;
    $("begin").addEventListener("click", begin);
    $("annotator").addEventListener("keydown", (e) => { if (e.key === "Enter") begin(); });
    $("export").addEventListener("click", exportAnswers);
    $("prev").addEventListener("click", () => go(state.index - 1));
    $("next").addEventListener("click", () => go(state.index + 1));
    $("save").addEventListener("click", () => save(currentValue()));
    $("zoom-in").addEventListener("click", () => setZoom(zoom * 1.25));
    $("zoom-out").addEventListener("click", () => setZoom(zoom / 1.25));
    $("zoom-reset").addEventListener("click", () => setZoom(1));
    document.addEventListener("keydown", onKey);
    window.setInterval(tick, 1000);
    if (state.annotator) {
      $("start").hidden = true;
      show();
    } else {
      $("work").hidden = true;
      document.body.dataset.status = "start";
      showProgress();
      $("annotator").focus();
    }
  }

  try { init(); } catch (err) { report(err); }
})();
