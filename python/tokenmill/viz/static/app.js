// tokenmill token viewer: sends the text to the local server (POST /api/encode) and shows
// the tokens of each chosen tokenizer. Security: the DOM is built with createElement and
// textContent only (never HTML strings), so token text from any vocabulary stays text;
// colours come from fixed CSS classes; the per-launch token from GET /api/tokenizers goes
// in a header that a cross-site form cannot send.
"use strict";

(function () {
  const PALETTE = 6;           // CSS classes c0..c5
  const RENDER_CAP = 5000;     // tokens drawn per tokenizer until "show all" (the server sends up to 20,000)
  const DEBOUNCE_MS = 150;
  const URL_TEXT_MAX = 1000;   // longer texts are not put in the address
  const EXAMPLE = "Tokenizers turn text into integers; \"hello world\" is 2 tokens.\n" +
    "def add(a, b):\n\treturn a + b  # code keeps its indentation\n" +
    "Emoji 👍🏽 and flags 🇫🇷, accents: naïve café.\n" +
    "中文分词，日本語のテキスト、한국어 문장.\n" +
    "<|endoftext|> is ordinary text unless special tokens are parsed.";

  const $ = (id) => document.getElementById(id);
  const input = $("input");
  const state = {
    info: null, offered: [], kinds: {}, selected: [], special: false, ids: false,
    seq: 0, timer: null, controller: null, last: null, expanded: new Set(), notice: "",
  };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function fmt(n, digits) {
    if (n === null || n === undefined) return "—";
    return Number(n).toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }

  function utf8Length(s) {
    return new TextEncoder().encode(s).length;
  }

  function setStatus(text) { $("status").textContent = text; }

  // An error of the last update, and a notice about the address (kept until the choice changes).
  function showBanner(text) {
    const b = $("banner");
    b.textContent = [text, state.notice].filter(Boolean).join(" ");
    b.hidden = !b.textContent;
  }

  // ---- URL state -------------------------------------------------------------------------

  // Labels may contain commas: join pieces back while they name an offered tokenizer.
  function parseNames(raw) {
    const parts = raw.split(",");
    const out = [];
    let i = 0;
    while (i < parts.length) {
      let found = -1;
      for (let j = parts.length; j > i; j--) {
        if (state.offered.includes(parts.slice(i, j).join(","))) { found = j; break; }
      }
      if (found < 0) {
        if (parts[i].trim()) out.push({ name: parts[i].trim(), known: false });
        i += 1;
      } else {
        out.push({ name: parts.slice(i, found).join(","), known: true });
        i = found;
      }
    }
    return out;
  }

  function readUrl() {
    const p = new URLSearchParams(window.location.search);
    const notes = [];
    if (p.has("encodings")) {
      const names = parseNames(p.get("encodings"));
      state.selected = [...new Set(names.filter((n) => n.known).map((n) => n.name))];
      const unknown = names.filter((n) => !n.known).map((n) => n.name);
      if (unknown.length) notes.push("Not offered by this server: " + unknown.join(", ") +
        ". Start it with --tokenizer FILE to add a tokenizer.");
    } else {
      state.selected = state.info.default.slice();
    }
    state.special = p.get("special") === "1";
    state.ids = p.get("ids") === "1";
    if (p.has("text")) input.value = p.get("text");
    $("opt-special").checked = state.special;
    $("opt-ids").checked = state.ids;
    state.notice = notes.join(" ");
    showBanner("");
  }

  function writeUrl() {
    const p = new URLSearchParams();
    p.set("encodings", state.selected.join(","));
    if (state.special) p.set("special", "1");
    if (state.ids) p.set("ids", "1");
    if (input.value && input.value.length <= URL_TEXT_MAX) p.set("text", input.value);
    const query = "?" + p.toString().replace(/%2C/g, ",");
    if (query !== window.location.search) history.replaceState(null, "", query + window.location.hash);
  }

  // ---- tokenizer chooser -------------------------------------------------------------------

  function buildChooser() {
    const box = $("choices");
    box.replaceChildren();
    for (const t of state.info.tokenizers) {
      const label = el("label", "chip" + (t.kind !== "standard" ? " own" : ""));
      const cb = el("input");
      cb.type = "checkbox";
      cb.checked = state.selected.includes(t.name);
      cb.dataset.testid = "choose-" + t.name;
      cb.addEventListener("change", () => {
        if (cb.checked) { if (!state.selected.includes(t.name)) state.selected.push(t.name); }
        else state.selected = state.selected.filter((n) => n !== t.name);
        label.classList.toggle("on", cb.checked);
        state.notice = "";
        schedule(0);
      });
      label.classList.toggle("on", cb.checked);
      label.append(cb, el("span", "chip-name", t.name));
      if (t.kind !== "standard") label.append(el("span", "chip-kind", t.kind));
      box.append(label);
    }
  }

  // ---- requests ----------------------------------------------------------------------------

  async function fetchInfo() {
    const r = await fetch("/api/tokenizers", { headers: { "Accept": "application/json" }, cache: "no-store" });
    if (!r.ok) throw new Error("the server answered " + r.status);
    state.info = await r.json();
    state.offered = state.info.tokenizers.map((t) => t.name);
    state.kinds = Object.fromEntries(state.info.tokenizers.map((t) => [t.name, t.kind]));
  }

  async function post(path, body, signal, retry) {
    const r = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Tokenmill-Token": state.info.token },
      body: JSON.stringify(body),
      signal: signal,
    });
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (r.status === 403 && data && data.error === "bad_token" && retry !== false) {
      // The server was restarted on the same port: take its new token and try once more.
      await fetchInfo();
      return post(path, body, signal, false);
    }
    return { status: r.status, data: data };
  }

  // The text box grows with its text, up to 40 % of the window (then it scrolls).
  function fitInput() {
    input.style.height = "auto";
    input.style.height = Math.min(Math.max(input.scrollHeight + 2, 150), Math.round(window.innerHeight * 0.4)) + "px";
  }

  function schedule(delay) {
    clearTimeout(state.timer);
    state.timer = setTimeout(update, delay === undefined ? DEBOUNCE_MS : delay);
  }

  function tooLargeMessage(bytes, limit) {
    return "The text is " + fmt(bytes, 0) + " bytes; this server accepts at most " + fmt(limit, 0) +
      " bytes per request (paste less text, or start tokenmill serve with a larger --max-body).";
  }

  async function update() {
    const text = input.value;
    const bytes = utf8Length(text);
    fitInput();
    $("textstats").textContent = fmt(text.length, 0) + " characters · " + fmt(bytes, 0) + " bytes";
    writeUrl();
    const seq = ++state.seq;
    if (state.controller) state.controller.abort();
    state.controller = new AbortController();
    if (bytes > state.info.limit_bytes - 1024) {
      showBanner(tooLargeMessage(bytes, state.info.limit_bytes));
      setStatus("");
      return;
    }
    setStatus("encoding…");
    const started = performance.now();
    let answer;
    try {
      answer = await post("/api/encode", { text: text, tokenizers: state.selected, parse_special: state.special },
        state.controller.signal);
    } catch (e) {
      if (e && e.name === "AbortError") return;
      if (seq === state.seq) {
        setStatus("");
        showBanner("Cannot reach the tokenmill server (" + e.message + "). Is `tokenmill serve` still running?");
      }
      return;
    }
    if (seq !== state.seq) return;  // a newer request is on its way
    setStatus("");
    if (answer.status === 413) {
      showBanner(tooLargeMessage(bytes, (answer.data && answer.data.limit_bytes) || state.info.limit_bytes));
      return;
    }
    if (answer.status !== 200 || !answer.data) {
      showBanner("The server refused the request: " + ((answer.data && answer.data.message) || ("HTTP " + answer.status)));
      return;
    }
    showBanner("");
    state.last = answer.data;
    render(answer.data);
    setStatus("updated in " + Math.round(performance.now() - started) + " ms");
  }

  // ---- rendering ---------------------------------------------------------------------------

  // One token as inline-block boxes (atomic inlines: each is isolated for bidi, and lays out
  // far faster than 20,000 isolated inline spans). A newline ends a box with its mark and is
  // followed by a real line break, so a token spanning lines is several boxes with one index.
  // Returns [nodes to append, the token's boxes].
  function tokenBoxes(piece, index) {
    const cls = "t c" + (index % PALETTE) + (piece.special ? " sp" : "") + (piece.partial ? " pt" : "");
    const box = () => { const b = el("span", cls); b.dataset.i = String(index); return b; };
    let current = box();
    const nodes = [current];
    const boxes = [current];
    const parts = piece.display;
    for (let k = 0; k < parts.length; k++) {
      if (!parts[k]) continue;
      if (k % 2 === 0) {
        current.append(document.createTextNode(parts[k]));
        continue;
      }
      // Whitespace marks are one character; escapes (<0xF0>, \u200b) are longer and darker.
      current.append(el("span", parts[k].length > 1 ? "m esc" : "m", parts[k]));
      if (parts[k] === "\u21b5") {
        current = box();
        nodes.push(el("br"), current);
        boxes.push(current);
      }
    }
    if (boxes.length > 1 && !current.firstChild) {
      nodes.pop();
      boxes.pop();
    }
    return [nodes, boxes];
  }

  function statBlock(value, unit, testid) {
    const box = el("div", "stat");
    const v = el("span", "v", value);
    if (testid) v.dataset.testid = testid;
    box.append(v, el("span", "u", unit));
    return box;
  }

  function panel(result) {
    const p = el("article", "card panel");
    p.dataset.name = result.name;
    const head = el("header", "panel-head");
    const title = el("h3", "panel-name", result.name);
    head.append(title);
    const kind = state.kinds[result.name];
    if (kind && kind !== "standard") head.append(el("span", "tag", kind));
    p.append(head);
    if (result.error) {
      const stats = el("div", "stats");
      const count = statBlock("—", "tokens", "count-" + result.name);
      count.classList.add("main");
      stats.append(count);
      p.append(stats, el("div", "error", result.error));
      return p;
    }
    const stats = el("div", "stats");
    const count = statBlock(String(result.count), result.count === 1 ? "token" : "tokens", "count-" + result.name);
    count.classList.add("main");
    const ratios = el("div", "ratios");
    ratios.append(statBlock(fmt(result.chars_per_token, 2), "chars / token"),
      statBlock(fmt(result.bytes_per_token, 2), "bytes / token"));
    stats.append(count, ratios);
    p.append(stats);
    if (result.note) p.append(el("div", "note", "Note: " + result.note + "."));

    // Tokens that do not join back to the text (WordPiece: no spaces, "##") get gaps.
    const tokens = el("div", result.lossless ? "tokens" : "tokens gaps");
    tokens.dataset.testid = "tokens-" + result.name;
    const frag = document.createDocumentFragment();
    const ids = result.ids;
    // Layout costs grow with the number of boxes: show RENDER_CAP tokens unless asked for all.
    const shown = state.expanded.has(result.name) ? ids.length : Math.min(ids.length, RENDER_CAP);
    const tokEls = new Array(shown);
    const idEls = [];
    for (let i = 0; i < shown; i++) {
      const [nodes, boxes] = tokenBoxes(result.pieces[String(ids[i])], i);
      tokEls[i] = boxes;
      frag.append(...nodes);
    }
    tokens.append(frag);
    if (!ids.length) tokens.append(el("span", "empty", "no tokens"));
    p.append(tokens);

    if (state.ids) {
      const idBox = el("div", "ids");
      idBox.dataset.testid = "ids-" + result.name;
      const f2 = document.createDocumentFragment();
      for (let i = 0; i < shown; i++) {
        const s = el("span", "i c" + (i % PALETTE), ids[i]);
        s.dataset.i = String(i);
        idEls.push(s);
        f2.append(s);
      }
      idBox.append(f2);
      p.append(idBox);
    }
    if (shown < result.count) {
      const note = el("div", "note", "Showing the first " + fmt(shown, 0) + " of " + fmt(result.count, 0) +
        " tokens; the counts cover the whole text. ");
      note.dataset.testid = "truncated-" + result.name;
      if (shown < ids.length) {
        const more = el("button", "ghost", "show " + fmt(ids.length, 0));
        more.type = "button";
        more.addEventListener("click", () => { state.expanded.add(result.name); if (state.last) render(state.last); });
        note.append(more);
      }
      p.insertBefore(note, tokens);
    }
    hookHover(p, result, tokEls, idEls);
    return p;
  }

  function render(data) {
    const panels = $("panels");
    panels.classList.toggle("many", data.results.length > 1);
    panels.replaceChildren(...data.results.map(panel));
    if (!data.results.length) panels.append(el("div", "card empty-panels", "Choose a tokenizer above."));
    renderRanking(data.results.filter((r) => !r.error));
  }

  function renderRanking(results) {
    const body = $("ranking").querySelector("tbody");
    body.replaceChildren();
    const sorted = results.slice().sort((a, b) => a.count - b.count || a.name.localeCompare(b.name));
    const best = sorted.length ? sorted[0].count : 0;
    const maxBpt = Math.max(0, ...sorted.map((r) => r.bytes_per_token || 0));
    sorted.forEach((r, k) => {
      const tr = el("tr");
      const pct = best ? Math.round((r.count / best - 1) * 100) : 0;
      const bar = el("div", "meter");
      const fill = el("div", "fill");
      // A number computed here, set through the CSSOM (allowed by the CSP; no style attribute).
      fill.style.width = (maxBpt ? Math.max(2, 100 * (r.bytes_per_token || 0) / maxBpt) : 0).toFixed(1) + "%";
      bar.append(fill);
      const rank = el("td", "rank", String(k + 1));
      const name = el("td", "name", r.name);
      const tokens = el("td", "num strong", fmt(r.count, 0));
      tokens.dataset.testid = "rank-count-" + r.name;
      const barCell = el("td", "barcol");
      barCell.append(bar);
      tr.append(rank, name, tokens, el("td", "num dim", k === 0 || !best ? "best" : "+" + pct + "%"),
        el("td", "num", fmt(r.chars_per_token, 2)), el("td", "num", fmt(r.bytes_per_token, 2)), barCell);
      body.append(tr);
    });
    if (!sorted.length) {
      const tr = el("tr");
      const td = el("td", "dim", "Type some text to compare the chosen tokenizers.");
      td.colSpan = 7;
      tr.append(td);
      body.append(tr);
    }
  }

  // ---- hover card -------------------------------------------------------------------------

  function hookHover(p, result, tokEls, idEls) {
    const tip = $("tip");
    let lit = [];
    const clear = () => { lit.forEach((e) => e.classList.remove("hl")); lit = []; tip.hidden = true; };
    p.addEventListener("mouseover", (ev) => {
      const target = ev.target.closest("[data-i]");
      if (!target || !p.contains(target)) return;
      clear();
      const i = Number(target.dataset.i);
      lit = (tokEls[i] || []).concat(idEls[i] ? [idEls[i]] : []);
      lit.forEach((e) => e.classList.add("hl"));
      const id = result.ids[i];
      fillTip(tip, i, result.count, id, result.pieces[String(id)]);
      const box = target.getBoundingClientRect();
      tip.hidden = false;
      const w = tip.offsetWidth;
      const h = tip.offsetHeight;
      let left = Math.min(window.innerWidth - w - 8, Math.max(8, box.left));
      let top = box.bottom + 6;
      if (top + h > window.innerHeight - 8) top = Math.max(8, box.top - h - 6);
      tip.style.left = left + "px";
      tip.style.top = top + "px";
    });
    p.addEventListener("mouseleave", clear);
  }

  function fillTip(tip, index, count, id, piece) {
    tip.replaceChildren();
    const rows = [["token", "#" + (index + 1) + " of " + fmt(count, 0)], ["id", String(id)],
      ["bytes", piece.hex || "(none)"], ["text", piece.display.join("") || "(empty)"]];
    if (piece.special) rows.push(["kind", "special token"]);
    if (piece.partial) rows.push(["kind", "part of a UTF-8 character"]);
    for (const [k, v] of rows) {
      const row = el("div", "tip-row");
      row.append(el("span", "tip-k", k), el("span", "tip-v" + (k === "text" ? " mono" : ""), v));
      tip.append(row);
    }
  }

  // ---- bundled samples ----------------------------------------------------------------------

  async function measureSamples() {
    const box = $("samples");
    box.replaceChildren(el("div", "dim", "measuring…"));
    let answer;
    try {
      answer = await post("/api/samples", { tokenizers: state.selected });
    } catch (e) {
      box.replaceChildren(el("div", "error", "Cannot reach the server: " + e.message));
      return;
    }
    if (answer.status !== 200 || !answer.data) {
      box.replaceChildren(el("div", "error", (answer.data && answer.data.message) || ("HTTP " + answer.status)));
      return;
    }
    const { samples, results } = answer.data;
    box.replaceChildren(...samplesTables(samples, results));
  }

  function table(headers, rows) {
    const t = el("table", "ranking");
    const head = el("tr");
    headers.forEach(([text, cls]) => head.append(el("th", cls || null, text)));
    const thead = el("thead");
    thead.append(head);
    const tbody = el("tbody");
    rows.forEach((cells) => {
      const tr = el("tr");
      cells.forEach(([text, cls]) => tr.append(el("td", cls || null, text)));
      tbody.append(tr);
    });
    t.append(thead, tbody);
    return t;
  }

  // A leaderboard over all samples, then tokens per sample (the fewest in each row in bold).
  function samplesTables(samples, results) {
    const totalBytes = samples.reduce((s, x) => s + x.bytes, 0);
    const ok = results.filter((r) => !r.error).map((r) => ({ name: r.name, counts: r.counts,
      total: r.counts.reduce((s, x) => s + x, 0) }));
    const ranked = ok.slice().sort((a, b) => a.total - b.total || a.name.localeCompare(b.name));
    const best = ranked.length ? ranked[0].total : 0;
    const board = table([["#"], ["tokenizer"], ["tokens, all samples", "num"], ["vs best", "num"], ["bytes / token", "num"]],
      ranked.map((r, k) => [[String(k + 1), "rank"], [r.name, "name"], [fmt(r.total, 0), "num strong"],
        [k === 0 || !best ? "best" : "+" + Math.round((r.total / best - 1) * 100) + "%", "num dim"],
        [fmt(r.total ? totalBytes / r.total : null, 2), "num"]]));
    const detail = table([["sample"], ["group"], ["bytes", "num"]].concat(ranked.map((r) => [r.name, "num mono"])),
      samples.map((s, i) => {
        const least = Math.min(...ranked.map((r) => r.counts[i]));
        return [[s.name, "name"], [s.group, "dim"], [fmt(s.bytes, 0), "num dim"]].concat(
          ranked.map((r) => [fmt(r.counts[i], 0), r.counts[i] === least ? "num strong" : "num"]));
      }));
    detail.classList.add("detail");
    const parts = [board, el("h3", "sub-head", "Tokens per sample"), detail];
    results.filter((r) => r.error).forEach((r) => parts.push(el("div", "error", r.name + ": " + r.error)));
    return parts;
  }

  // ---- start -------------------------------------------------------------------------------

  async function start() {
    try {
      await fetchInfo();
    } catch (e) {
      showBanner("Cannot reach the tokenmill server (" + e.message + "). Is `tokenmill serve` still running?");
      return;
    }
    readUrl();
    buildChooser();
    $("samples-box").hidden = !state.info.samples;
    input.addEventListener("input", () => schedule());
    $("opt-special").addEventListener("change", (e) => { state.special = e.target.checked; schedule(0); });
    $("opt-ids").addEventListener("change", (e) => {
      state.ids = e.target.checked;
      writeUrl();
      if (state.last) render(state.last);
    });
    $("example").addEventListener("click", () => { input.value = EXAMPLE; schedule(0); input.focus(); });
    $("clear").addEventListener("click", () => { input.value = ""; schedule(0); input.focus(); });
    $("samples-btn").addEventListener("click", measureSamples);
    update();
    input.focus();
  }

  start();
})();
