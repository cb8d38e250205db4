// The site's search page: Pagefind, one bundle per venue (hooks/search_index.py), all asked at once.
// A reader's browser fetches only the parts of each index that hold the words asked, so what it downloads
// does not grow with the site.  `?q=` (the header's search box) starts a search on arrival.
document$.subscribe(() => {
  const box = document.getElementById("site-search")
  if (!box || box.dataset.ready) return
  box.dataset.ready = "1"
  const venues = (box.dataset.bundles || "").split(" ").filter(Boolean)
  if (!venues.length) {
    box.textContent = "还没有可以搜索的论文。"
    return
  }
  const root = new URL("../", location.href)
  const bundle = venue => new URL("search-index/" + venue + "/", root).pathname
  const css = document.createElement("link")
  css.rel = "stylesheet"
  css.href = bundle(venues[0]) + "pagefind-ui.css"
  document.head.appendChild(css)
  const script = document.createElement("script")
  script.src = bundle(venues[0]) + "pagefind-ui.js"
  script.onload = () => {
    const ui = new PagefindUI({
      element: "#site-search",
      bundlePath: bundle(venues[0]),
      mergeIndex: venues.slice(1).map(venue => ({bundlePath: bundle(venue)})),
      baseUrl: root.pathname,
      showSubResults: false,
      showImages: false,
      resetStyles: false
    })
    const query = new URLSearchParams(location.search).get("q")
    if (query) ui.triggerSearch(query)
  }
  document.head.appendChild(script)
})
