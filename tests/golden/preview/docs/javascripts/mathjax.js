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

// Material's instant navigation swaps a page in without loading it: typeset it again. The first page
// emits before MathJax has started (no output yet): MathJax typesets that one itself when it starts.
document$.subscribe(() => {
  if (!MathJax.startup || !MathJax.startup.output) return
  MathJax.startup.output.clearCache()
  MathJax.typesetClear()
  MathJax.texReset()
  MathJax.typesetPromise()
})
