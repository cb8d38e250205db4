// The site's search page: one Pagefind index (hooks/search_index.py) asked through Pagefind's own API.
// Chinese is matched as overlapping character pairs (hooks/search_terms.py writes them into each paper
// page in Latin letters): a query's Han runs become the same pairs, all required, and a run of three or
// more characters is checked against the order of the page's pairs, so a page is found exactly when its
// text holds the run.  Latin words go to Pagefind as typed (prefix match, case folded).  A reader's
// browser fetches only the index chunks that hold the query's terms.  `?q=` (the header's box) starts
// a search on arrival; window.siteSearch(query, filters) gives every result's URL (the tests use it).
const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{3134f}]+/u
const WORDS = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{3134f}]+|(?:(?![\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{3134f}])[\p{L}\p{N}])+/gu
const LAST = "zqzzzzzzzz" // ends the hidden part (search_terms.LAST): the reader's text follows
const PAGE = 10

function letters(char) {
  let n = char.codePointAt(0)
  let out = ""
  for (let i = 0; i < 4; i++) {
    out = String.fromCharCode(97 + (n % 26)) + out
    n = Math.floor(n / 26)
  }
  return out
}

// {terms: what Pagefind is asked, runs: pair sequences a page must hold in order, marks: what to highlight}
function parse(query) {
  const terms = []
  const runs = []
  const marks = []
  for (const word of query.normalize("NFKC").match(WORDS) || []) {
    marks.push(word)
    if (!HAN.test(word)) {
      terms.push(word.toLowerCase())
      continue
    }
    const codes = Array.from(word, letters)
    if (codes.length === 1) {
      terms.push("zq" + codes[0]) // a prefix: pairs that start with it, and the end of a run
      continue
    }
    const pairs = codes.slice(1).map((code, i) => "zq" + codes[i] + code)
    // Pairs that cover the run without overlap find every page that holds it (fewer index chunks to fetch);
    // the order check then asks for all of them, in order.
    terms.push(...pairs.filter((_, i) => i % 2 === 0 || i === pairs.length - 1))
    if (pairs.length > 1) runs.push(pairs.join(" "))
  }
  return { terms: [...new Set(terms)], runs, marks }
}

function holds(data, runs) {
  if (!runs.length) return true
  const hidden = data.content.split(LAST)[0]
  const pairs = " " + (hidden.match(/\bzq[a-z]{8}\b/g) || []).join(" ") + " "
  return runs.every(run => pairs.includes(" " + run + " "))
}

// Pagefind's results in its order (title and tags first), not yet loaded: `fill` loads and checks them.
async function results(pagefind, query, filters) {
  const parsed = parse(query)
  const search = parsed.terms.length ? await pagefind.search(parsed.terms.join(" "), { filters }) : { results: [] }
  return { parsed, found: [], pending: search.results.slice(), exact: !parsed.runs.length, total: search.results.length }
}

// Loads pending results until `want` of them passed the order check (or none is left).
async function fill(state, want, batch = PAGE) {
  while (state.found.length < want && state.pending.length) {
    const loaded = await Promise.all(state.pending.splice(0, batch).map(r => r.data()))
    state.found.push(...loaded.filter(data => holds(data, state.parsed.runs)))
  }
  return state
}

function escape(text) {
  return text.replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c])
}

// A snippet of the page's own text around the first word asked, each word asked marked.
function snippet(data, marks) {
  const text = data.content.split(LAST).pop().replace(/^\.?\s*/, "").replace(/\s+/g, " ").trim()
  const lower = text.toLowerCase()
  const hits = marks.map(m => lower.indexOf(m.toLowerCase())).filter(i => i >= 0)
  const at = hits.length ? Math.min(...hits) : 0
  const start = Math.max(0, at - 40)
  let part = (start ? "…" : "") + text.slice(start, start + 140) + (start + 140 < text.length ? "…" : "")
  part = escape(part)
  const pattern = marks.map(m => escape(m).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")
  return pattern ? part.replace(new RegExp(pattern, "giu"), m => "<mark>" + m + "</mark>") : part
}

function render(list, data, marks) {
  const item = document.createElement("li")
  item.className = "search-result"
  const url = new URL(data.url, location.href).href
  const where = ["venue", "field"].flatMap(name => (data.filters || {})[name] || []).map(escape).join(" · ")
  item.innerHTML =
    '<a class="search-result__title" href="' + escape(url) + '">' + escape(data.meta.title || url) + "</a>" +
    '<div class="search-result__where">' + where + "</div>" +
    '<p class="search-result__snippet">' + snippet(data, marks) + "</p>"
  list.appendChild(item)
}

function choice(name, label, counts) {
  const select = document.createElement("select")
  select.name = name
  select.setAttribute("aria-label", label)
  select.add(new Option("全部" + label, ""))
  for (const value of Object.keys(counts).sort()) select.add(new Option(value, value))
  return select
}

function page(box, pagefind) {
  box.innerHTML =
    '<form class="search-form" role="search"><input type="search" name="q" placeholder="输入词语，如 对齐、KV cache 量化"' +
    ' aria-label="搜索" autocomplete="off"></form><p class="search-count" aria-live="polite"></p>' +
    '<details class="search-filters"><summary>按会议、领域筛选</summary></details><ol class="search-results"></ol><button type="button" class="md-button search-more" hidden>更多结果</button>'
  const form = box.querySelector("form")
  const input = form.querySelector("input")
  const count = box.querySelector(".search-count")
  const list = box.querySelector(".search-results")
  const more = box.querySelector(".search-more")
  let run = 0
  let current = null
  const filters = () => {
    const out = {}
    for (const select of box.querySelectorAll("select")) if (select.value) out[select.name] = select.value
    return out
  }
  const show = async () => {
    const mine = ++run
    list.textContent = ""
    count.textContent = ""
    more.hidden = true
    if (!input.value.trim()) return
    const state = await results(pagefind, input.value, filters())
    if (mine === run) await next((current = state), mine)
  }
  // The first result shows as soon as its own page data is in; the rest of a page of results follows.
  const next = async (state, mine) => {
    const first = !list.children.length
    for (const want of first ? [1, PAGE - 1] : [PAGE]) {
      await fill(state, want, want)
      if (mine !== run) return
      for (const data of state.found.splice(0, want)) render(list, data, state.parsed.marks)
      const open = state.found.length + state.pending.length > 0
      const known = state.exact ? state.total : list.children.length + state.found.length
      count.textContent = !known ? "没有找到。" : state.exact || !open ? "找到 " + known + " 篇" : "已找到 " + known + " 篇，还有待核对的"
      more.hidden = !open
      await new Promise(resolve => setTimeout(resolve)) // the first result is drawn before more is fetched
    }
  }
  more.addEventListener("click", () => current && next(current, run))
  form.addEventListener("submit", event => {
    event.preventDefault()
    show()
  })
  input.addEventListener("input", show)
  // The filters' choices load when a reader opens them: a first search does not wait for them.
  const filtersBox = box.querySelector(".search-filters")
  filtersBox.addEventListener("toggle", async () => {
    if (filtersBox.dataset.ready) return
    filtersBox.dataset.ready = "1"
    const counts = await pagefind.filters()
    if (counts.venue) filtersBox.appendChild(choice("venue", "会议", counts.venue))
    if (counts.field) filtersBox.appendChild(choice("field", "领域", counts.field))
    for (const select of box.querySelectorAll("select")) select.addEventListener("change", show)
  })
  const query = new URLSearchParams(location.search).get("q")
  if (query) {
    input.value = query
    show()
  }
}

document$.subscribe(async () => {
  const box = document.getElementById("site-search")
  if (!box || box.dataset.ready) return
  box.dataset.ready = "1"
  if (!box.dataset.bundles) {
    box.textContent = "还没有可以搜索的论文。"
    return
  }
  const root = new URL("../", location.href)
  const pagefind = await import(new URL(box.dataset.bundles + "/pagefind.js", root).href)
  // No worker: one file fewer before the first result, and a query's work is small.
  await pagefind.options({ baseUrl: root.pathname, noWorker: true })
  window.siteSearch = async (query, filters = {}) =>
    (await fill(await results(pagefind, query, filters), Infinity)).found.map(d => new URL(d.url, location.href).pathname)
  page(box, pagefind)
})
