// judgekit review: every piece of data is rendered as text (textContent), never as markup.
"use strict";
(() => {
  const token = new URLSearchParams(location.search).get("token") || "";
  const main = document.getElementById("main");
  const statusLine = document.getElementById("status");
  const progress = document.getElementById("progress");
  const help = document.getElementById("help");
  let queue = null;
  let item = null;
  let showFix = false;
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
    if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
    return r.json();
  }

  function say(text) { statusLine.textContent = text; }

  function updateProgress() {
    const done = queue.items.filter((q) => q.labelled).length;
    progress.textContent = `${done} of ${queue.total} labelled · labeller ${queue.labeller}`;
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
        const agree = v.winner_side === item.labels[d];
        tr.append(el("td", agree ? "agree" : "disagree",
          v.winner === "draw" ? "draw" : `${v.winner_side} (${v.winner})`));
        const orders = el("td");
        for (const o of v.orders) {
          orders.append(el("div", "order", `${o.first} shown first: ${o.answer ?? "no answer"}` +
            (o.reasoning ? ` · ${o.reasoning}` : "")));
        }
        if (v.position_bias) orders.append(el("div", "warn", "position bias"));
        for (const [name, jv] of Object.entries(rev.judges)) {
          const j = jv[d];
          if (j) orders.append(el("div", "juror", `${name}: ${j.winner}`));
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

  function markedText(text, marks) {
    const pre = el("pre", "material");
    let pos = 0;
    for (const m of marks.slice().sort((x, y) => x.start - y.start)) {
      if (m.start < pos) continue;
      pre.append(document.createTextNode(text.slice(pos, m.start)));
      const mark = el("mark", "quote", text.slice(m.start, m.end));
      mark.title = m.quote;
      pre.append(mark);
      pos = m.end;
    }
    pre.append(document.createTextNode(text.slice(pos)));
    return pre;
  }

  function auditView() {
    const view = item.view;
    const rev = item.reveal;
    const out = [];
    const label = item.label === null ? "—" : item.label === 1 ? "1 (defect of the task)" : "0 (the agent's fault)";
    out.push(el("p", "prompt", item.labelled
      ? `Your label: ${label}. The judge's verdict is shown. j: next item.`
      : "Audit: is this failure a defect of the task (1) or the agent's fault (0)?"));
    out.push(el("p", "meta", `tests ${view.test_status}`));
    if (rev) {
      const v = el("section", "verdict");
      const agree = rev.score === item.label;
      v.append(el("h3", agree ? "agree" : "disagree",
        `judge: ${rev.score ?? "no verdict"} · ${rev.deficiency_type ?? ""} · arm ${rev.arm}, attempt ${rev.attempt}`));
      for (const f of ["existence_reasoning", "causation_reasoning"]) {
        if (rev.verdict[f]) v.append(el("p", null, `${f.replace("_", " ")}: ${rev.verdict[f]}`));
      }
      v.append(el("p", "meta", `${rev.marks.length} quote(s) marked where found`));
      if (rev.quotes_not_found.length) {
        const ul = el("ul", "notfound");
        for (const q of rev.quotes_not_found) ul.append(el("li", null, `not found: ${q}`));
        v.append(ul);
      }
      for (const [name, j] of Object.entries(rev.judges)) {
        v.append(el("p", "juror", `${name}: ${j.score ?? j.state} ${j.deficiency_type ?? ""}`));
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
    document.body.dataset.state = item.labelled ? "revealed" : "blind";
    document.body.dataset.item = String(item.i);
    document.body.dataset.kind = item.kind;
    const parts = [taskHeader(item.view)];
    parts.push(...(item.kind === "pairwise" ? pairView() : auditView()));
    main.replaceChildren(...parts);
    updateProgress();
  }

  async function open(i) {
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

  async function label(kind, choice) {
    if (item.kind !== kind || item.labelled) {
      const next = nextUnlabelled();
      if (next === null) { say("every item is labelled"); return; }
      await open(next);
      if (item.kind !== kind) { say(`this item takes ${item.kind === "audit" ? "1 or 0" : "a, b or d"}`); return; }
    }
    const body = { i: item.i, choice };
    if (kind === "pairwise") body.dimension = currentDim();
    item = await api("/api/label", body);
    queue.items[item.i].labelled = item.labelled;
    say(`stored ${kind === "pairwise" ? body.dimension + ": " + choice : "label " + choice}`);
    render();
  }

  async function handle(key) {
    if (!queue || !item) return;
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
      case "?": help.hidden = !help.hidden; return;
      default: return;
    }
  }

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;  // a held key labels once
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
