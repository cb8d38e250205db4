// MathJax for pymdownx.arithmatex (generic): typeset only what arithmatex marked as math.
// Summaries are text from strangers and from a model, so TeX gets no way to reach the page
// beyond math: no extension that makes links, ids, classes, styles or loads more TeX
// (\href \class \cssId \style: html; \bbox; \unicode; \toggle \mathtip: action; \require),
// and ui/safe strips any URL, class, id or style that base TeX (\mmlToken) still sets.
window.MathJax = {
  loader: {load: ["ui/safe"]},
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
    packages: {"[-]": ["require", "html", "bbox", "unicode", "action", "setoptions"]},
    autoload: {html: [], bbox: [], unicode: [], action: []},
    require: {
      allow: {html: false, bbox: false, unicode: false, action: false, setoptions: false, "all-packages": false}
    }
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
    safeOptions: {
      allow: {URLs: "none", classes: "none", cssIDs: "none", styles: "none"}
    }
  }
};

// Material's instant navigation swaps a page in without loading it: typeset it again. The first emission
// is the page MathJax typesets itself as it starts; typesetting that one here too, while MathJax may already
// be at it, would draw each formula twice. A later page's clear and typeset wait for every typeset before
// them (MathJax's own advice: chain on startup.promise), so they never cut into one.
let firstPage = true
document$.subscribe(() => {
  if (firstPage) {
    firstPage = false
    return
  }
  if (!MathJax.startup || !MathJax.startup.promise) return
  MathJax.startup.promise = MathJax.startup.promise.then(() => {
    MathJax.startup.output.clearCache()
    MathJax.typesetClear()
    MathJax.texReset()
    return MathJax.typesetPromise()
  })
})
