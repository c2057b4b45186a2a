// judgekit review: every piece of data is rendered as text (textContent), never as markup.
"use strict";
(() => {
  const token = new URLSearchParams(location.search).get("token") || "";
  const main = document.getElementById("main");
  const statusLine = document.getElementById("status");
  const progress = document.getElementById("progress");
  const help = document.getElementById("help");
  const browse = document.getElementById("browse");
  const browseList = document.getElementById("browse-list");
  const browseNote = document.getElementById("browse-note");
  //: filters on what the arms and verdicts say: they match labelled items only (the
  //: server sends these facets for labelled items only)
  const FACETS = ["flagged", "jury_split", "anchored_contradiction", "unverified_evidence"];
  let queue = null;
  let item = null;
  let showFix = false;
  let choosing = false;  // after 1 on an audit: the category is picked next
  let via = null;  // "filter" when the item shown was opened from a filtered list
  let chain = Promise.resolve();

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  async function api(path, body) {
    const opts = { headers: { "X-Review-Token": token } };
    if (body !== undefined) {
      opts.method = "POST";
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const r = await fetch(path, opts);
    if (!r.ok) {  // the server's reason, when it gave one (a label not stored says why)
      let why = "";
      try { why = (await r.json()).error || ""; } catch (e) { why = ""; }
      throw new Error(`${path}: HTTP ${r.status}` + (why ? `: ${why}` : ""));
    }
    return r.json();
  }

  function say(text) { statusLine.textContent = text; }

  function updateProgress() {
    const done = queue.items.filter((q) => q.labelled).length;
    // the random sample: the items labelled from the first of the queue's random order on
    const targets = Object.entries(queue.targets || {}).map(([kind, t]) =>
      ` · ${kind} random labels ${t.random_labelled}` + (t.labels_needed === null
        ? ` (±${t.half_width} not reachable)` : ` of ${t.labels_needed} for ±${t.half_width}`));
    const inOrder = Object.values(queue.random_labelled || {}).reduce((a, b) => a + b, 0);
    progress.textContent = `${done} of ${queue.total} labelled · labeller ${queue.labeller}` +
      (queue.queue_seed !== undefined
        ? ` · random order, seed ${queue.queue_seed}: ${inOrder} labelled in order` : "") +
      targets.join("") +
      (queue.stale_labels ? ` · ${queue.stale_labels} stale label(s) of changed items, not counted` : "");
  }

  function diffView(text) {
    const pre = el("pre", "diff");
    if (!text) { pre.append(el("span", "none", "(no diff)")); return pre; }
    for (const line of text.split("\n")) {
      let cls = "ctx";
      if (line.startsWith("diff --git") || line.startsWith("+++") || line.startsWith("---")) cls = "file";
      else if (line.startsWith("@@")) cls = "hunk";
      else if (line.startsWith("+")) cls = "add";
      else if (line.startsWith("-")) cls = "del";
      pre.append(el("span", cls, line + "\n"));
    }
    return pre;
  }

  function fmt(x) { return x === null || x === undefined ? "n/a" : Number(x).toFixed(2); }
  const SIDE = { left: "left", right: "right", draw: "draw" };

  function taskHeader(view) {
    const sec = el("section", "task");
    const h = el("h2", null, `Item ${item.i + 1} of ${item.total}: task ${view.task.id}`);
    sec.append(h);
    if (view.task.repo) sec.append(el("p", "meta", `repository ${view.task.repo}`));
    if (view.task.test_command) sec.append(el("p", "meta", `tests: ${view.task.test_command}`));
    sec.append(el("pre", "description", view.task.description || "(no description)"));
    if (showFix) {
      const fix = el("div", "fix");
      fix.append(el("h3", null, "The fix"), diffView(view.task.fix));
      sec.append(fix);
    }
    return sec;
  }

  function currentDim() {
    return item.view.dimensions.find((d) => !(d in item.labels));
  }

  // An order's answer names the arm the judge chose (never the slot letter it wrote).
  function orderAnswer(o) {
    if (o.answer === null || o.answer === undefined) {
      return item.reveal.identical ? "not asked (identical diffs)" : "no answer";
    }
    return o.answer === "tie" ? "tie" : `${o.answer} better`;
  }

  function appendOrders(box, v) {
    for (const o of v.orders) {
      box.append(el("div", "order", `${o.first} shown first: ${orderAnswer(o)}` +
        (o.reasoning ? ` · ${o.reasoning}` : "")));
    }
    if (v.position_bias) box.append(el("div", "warn", "position bias"));
  }

  // A verdict the judge did not give validly is "no answer": not a draw, and neither
  // agreeing nor disagreeing with the label.
  function noAnswer(state) { return `no answer (${state})`; }

  function pairView() {
    const view = item.view;
    const rev = item.reveal;
    const dims = el("table", "dims");
    const head = el("tr");
    head.append(el("th", null, "dimension"), el("th", null, "your label"));
    if (rev) head.append(el("th", null, "judge"), el("th", null, "each order"));
    dims.append(head);
    const cur = currentDim();
    for (const d of view.dimensions) {
      const tr = el("tr", d === cur ? "current" : null);
      tr.dataset.dimension = d;
      tr.append(el("td", null, d), el("td", "label", SIDE[item.labels[d]] || "—"));
      if (rev) {
        const v = rev.verdict[d];
        if (v.state !== "valid") {
          tr.append(el("td", "noanswer", noAnswer(v.state)));
        } else {
          const agree = v.winner_side === item.labels[d];
          tr.append(el("td", agree ? "agree" : "disagree",
            v.winner === "draw" ? "draw" : `${v.winner_side} (${v.winner})`));
        }
        const orders = el("td");
        const jurors = Object.entries(rev.judges);
        // one judge: its two orders; a jury: its verdict combines the jurors' (it has no
        // orders of its own), so each juror's verdict with its two orders and reasons
        if (!jurors.length) appendOrders(orders, v);
        for (const [name, jv] of jurors) {
          const j = jv[d];
          if (!j) continue;
          const box = el("div", "juror");
          box.append(el("div", "juror-name", `${name}: ` +
            (j.state !== "valid" ? noAnswer(j.state) : j.winner)));
          appendOrders(box, j);
          orders.append(box);
        }
        tr.append(orders);
      }
      dims.append(tr);
    }
    const sides = el("div", "sides");
    for (const side of ["left", "right"]) {
      const s = view[side];
      const col = el("section", `side ${side}`);
      col.append(el("h3", null, rev ? `${side}: ${side === "left" ? rev.left_arm : rev.right_arm}` : side));
      col.append(el("p", "meta", `tests ${s.test_status ?? "n/a"}` +
        (s.test_reason ? ` (${s.test_reason})` : "") + ` · F1 vs the fix ${fmt(s.f1)}`));
      col.append(diffView(s.diff));
      if (s.test_output) {
        const det = el("details");
        det.append(el("summary", null, "test output"), el("pre", "output", s.test_output));
        col.append(det);
      }
      sides.append(col);
    }
    const prompt = el("p", "prompt", item.labelled
      ? "Labelled; the judge's verdicts are shown. j: next item."
      : `Which is better on ${cur}? a: left · b: right · d: draw`);
    return [prompt, dims, sides];
  }

  // Overlapping or touching spans are merged into one mark, titled with every quote it
  // holds, so that no verified quote is left outside a mark. Offsets are UTF-16 units.
  function mergedSpans(marks) {
    const spans = [];
    for (const m of marks.slice().sort((x, y) => x.start - y.start || x.end - y.end)) {
      const last = spans[spans.length - 1];
      if (last && m.start <= last.end) {
        last.end = Math.max(last.end, m.end);
        last.quotes.push(m.quote);
      } else {
        spans.push({ start: m.start, end: m.end, quotes: [m.quote] });
      }
    }
    return spans;
  }

  function markedText(text, marks) {
    const pre = el("pre", "material");
    let pos = 0;
    for (const s of mergedSpans(marks)) {
      pre.append(document.createTextNode(text.slice(pos, s.start)));
      const mark = el("mark", "quote", text.slice(s.start, s.end));
      mark.title = s.quotes.join("\n");
      mark.dataset.quotes = String(s.quotes.length);
      pre.append(mark);
      pos = s.end;
    }
    pre.append(document.createTextNode(text.slice(pos)));
    return pre;
  }

  function auditView() {
    const view = item.view;
    const rev = item.reveal;
    const out = [];
    const label = item.label === null ? "—" : item.label === 1
      ? "1 (defect of the task" + (item.category ? `: ${item.category})` : ")") : "0 (the agent's fault)";
    if (choosing) {
      out.push(el("p", "prompt", "Which category of the rubric? Press its number; Enter: none given; Escape: back."));
      const ol = el("ol", "categories");
      item.categories.forEach((c, n) => {
        const li = el("li", null, c);
        li.dataset.key = String((n + 1) % 10);
        ol.append(li);
      });
      out.push(ol);
    } else {
      out.push(el("p", "prompt", item.labelled
        ? `Your label: ${label}. The judge's verdict is shown. j: next item.`
        : "Audit: is this failure a defect of the task (1) or the agent's fault (0)?"));
    }
    out.push(el("p", "meta", `tests ${view.test_status}`));
    if (rev) {
      const v = el("section", "verdict");
      const answered = rev.state === "valid" && rev.score !== null && rev.score !== undefined;
      const agree = rev.score === item.label;
      v.append(el("h3", !answered ? "noanswer" : agree ? "agree" : "disagree",
        `judge: ${answered ? rev.score : noAnswer(rev.state)}` +
        (answered && rev.deficiency_type ? ` · ${rev.deficiency_type}` : "") +
        ` · arm ${rev.arm}, attempt ${rev.attempt}`));
      for (const f of ["existence_reasoning", "causation_reasoning"]) {
        if (rev.verdict[f]) v.append(el("p", null, `${f.replace("_", " ")}: ${rev.verdict[f]}`));
      }
      const places = view.texts.reduce((n, t) =>
        n + mergedSpans(rev.marks.filter((m) => m.text === t.name)).length, 0);
      v.append(el("p", "meta", `${rev.marks.length} quote(s) marked where found` +
        (places !== rev.marks.length ? `, in ${places} place(s) (overlapping quotes share a mark)` : "")));
      if (rev.quotes_not_found.length) {
        const ul = el("ul", "notfound");
        for (const q of rev.quotes_not_found) ul.append(el("li", null, `not found: ${q}`));
        v.append(ul);
      }
      for (const [name, j] of Object.entries(rev.judges)) {
        v.append(el("p", "juror", `${name}: ` + (j.state === "valid" && j.score !== null
          ? `${j.score} ${j.deficiency_type ?? ""}` : noAnswer(j.state))));
      }
      out.push(v);
    }
    for (const t of view.texts) {
      const sec = el("section", "text");
      sec.dataset.name = t.name;
      sec.append(el("h3", null, t.name));
      const marks = rev ? rev.marks.filter((m) => m.text === t.name) : [];
      sec.append(marks.length ? markedText(t.text, marks) : el("pre", "material", t.text));
      out.push(sec);
    }
    return out;
  }

  function render() {
    document.body.dataset.state = item.labelled ? "revealed" : choosing ? "category" : "blind";
    document.body.dataset.item = String(item.i);
    document.body.dataset.kind = item.kind;
    const parts = [taskHeader(item.view)];
    parts.push(...(item.kind === "pairwise" ? pairView() : auditView()));
    main.replaceChildren(...parts);
    updateProgress();
  }

  async function open(i, how) {
    choosing = false;
    via = how || null;
    item = await api(`/api/item?i=${i}`);
    render();
  }

  function nextUnlabelled() {
    const n = queue.items.length;
    for (let k = 1; k <= n; k++) {
      const q = queue.items[(item.i + k) % n];
      if (!q.labelled) return q.i;
    }
    return null;
  }

  async function label(kind, choice, category) {
    if (item.kind !== kind || item.labelled) {
      const next = nextUnlabelled();
      if (next === null) { say("every item is labelled"); return; }
      await open(next);
      if (item.kind !== kind) { say(`this item takes ${item.kind === "audit" ? "1 or 0" : "a, b or d"}`); return; }
    }
    if (kind === "audit" && choice === 1 && category === undefined && item.categories.length) {
      choosing = true;  // the category comes with the next key
      render();
      return;
    }
    const body = { i: item.i, choice };
    if (via) body.via = via;
    if (kind === "pairwise") body.dimension = currentDim();
    if (category) body.category = category;
    item = await api("/api/label", body);
    queue.items[item.i].labelled = item.labelled;
    if (item.labelled) queue = await api("/api/queue");  // the random sample's progress
    say(`stored ${kind === "pairwise" ? body.dimension + ": " + choice : "label " + choice}`);
    render();
  }

  async function pickCategory(key) {
    if (key === "Escape") { choosing = false; render(); return; }
    let category = null;
    if (key !== "Enter") {
      if (!/^[0-9]$/.test(key)) return;
      const n = key === "0" ? 9 : Number(key) - 1;
      if (n >= item.categories.length) return;
      category = item.categories[n];
    }
    choosing = false;
    await label("audit", 1, category);
  }

  function value(id) { return document.getElementById(id).value; }

  function fillSelect(id, values) {
    const sel = document.getElementById(id);
    const keep = sel.value;
    sel.replaceChildren(el("option", null, "any"));
    sel.firstChild.value = "";
    for (const v of values) { const o = el("option", null, v); o.value = v; sel.append(o); }
    sel.value = values.includes(keep) ? keep : "";
  }

  function matches(q) {
    if (value("f-kind") && q.kind !== value("f-kind")) return false;
    if (value("f-status") && !q.status.includes(value("f-status"))) return false;
    if (value("f-labelled") && q.labelled !== (value("f-labelled") === "yes")) return false;
    const arm = value("f-arm");
    const on = FACETS.filter((f) => document.getElementById(`f-${f}`).checked);
    if (!arm && !on.length) return true;
    if (!q.facets) return false;  // not labelled: never matched on arms or verdicts
    return (!arm || q.facets.arms.includes(arm)) && on.every((f) => q.facets[f]);
  }

  function listBrowse() {
    const blindOk = (q) => (!value("f-kind") || q.kind === value("f-kind")) &&
      (!value("f-status") || q.status.includes(value("f-status"))) &&
      (!value("f-labelled") || q.labelled === (value("f-labelled") === "yes"));
    const shown = queue.items.filter(matches);
    const verdictFilter = value("f-arm") || FACETS.some((f) => document.getElementById(`f-${f}`).checked);
    const hidden = verdictFilter ? queue.items.filter((q) => !q.labelled && blindOk(q)).length : 0;
    browseNote.textContent = `${shown.length} of ${queue.total} items` + (hidden
      ? `; ${hidden} not labelled yet left out (filters on arms and verdicts match labelled items only)` : "") +
      (item && !item.labelled ? "; the arm filter lists arms once the item shown is labelled" : "");
    browseList.replaceChildren(...shown.map((q) => {
      const li = el("li");
      const b = el("button", null, `item ${q.i + 1}: ${q.kind === "audit" ? "audit" : "comparison"} · ` +
        `task ${q.task_id} · tests ${q.status.join("/")} · ${q.labelled ? "labelled" : "not labelled"}`);
      b.type = "button";
      b.dataset.i = String(q.i);
      b.addEventListener("click", () => {
        const filtered = [...document.querySelectorAll("#filters select")].some((x) => x.value) ||
          FACETS.some((f) => document.getElementById(`f-${f}`).checked);
        chain = chain.then(async () => { closeBrowse(); await open(q.i, filtered ? "filter" : "hand"); });
      });
      li.append(b);
      return li;
    }));
  }

  async function openBrowse() {
    queue = await api("/api/queue");
    fillSelect("f-status", [...new Set(queue.items.flatMap((q) => q.status))].sort());
    // Arm names enter the page only while the panel is open over a labelled item: with a
    // blind item shown, any arm listed could be one of its own.
    fillSelect("f-arm", item && item.labelled
      ? [...new Set(queue.items.flatMap((q) => q.facets ? q.facets.arms : []))].sort() : []);
    browse.hidden = false;
    document.body.dataset.browse = "open";
    listBrowse();
    document.getElementById("f-kind").focus();
  }

  function closeBrowse() {
    browse.hidden = true;
    fillSelect("f-arm", []);
    delete document.body.dataset.browse;
    if (document.activeElement && browse.contains(document.activeElement)) document.activeElement.blur();
  }

  document.getElementById("filters").addEventListener("change", listBrowse);
  document.getElementById("filters").addEventListener("submit", (e) => e.preventDefault());

  async function handle(key) {
    if (!queue || !item) return;
    if (choosing) return pickCategory(key);
    switch (key) {
      case "a": return label("pairwise", "left");
      case "b": return label("pairwise", "right");
      case "d": return label("pairwise", "draw");
      case "1": return label("audit", 1);
      case "0": return label("audit", 0);
      case "j": if (item.i + 1 < queue.total) await open(item.i + 1); return;
      case "k": if (item.i > 0) await open(item.i - 1); return;
      case "n": { const f = nextUnlabelled(); if (f !== null) await open(f); return; }
      case "f": showFix = !showFix; render(); return;
      case "q": return openBrowse();
      case "?": help.hidden = !help.hidden; return;
      default: return;
    }
  }

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;  // a held key labels once
    if (!browse.hidden) {  // browsing: the keys move through the filters and the list
      if (e.key === "Escape") { e.preventDefault(); closeBrowse(); }
      return;
    }
    chain = chain.then(() => handle(e.key)).catch((err) => {
      document.body.dataset.error = "1";
      say(`error: ${err.message}`);
    });
  });

  async function start() {
    queue = await api("/api/queue");
    if (!queue.total) {
      document.body.dataset.state = "empty";
      main.replaceChildren(el("p", "prompt", "Nothing to review: no pairwise or audit records."));
      return;
    }
    await open(queue.first_unlabelled ?? 0);
  }
  chain = chain.then(start).catch((err) => { document.body.dataset.error = "1"; say(`error: ${err.message}`); });
})();
