// Starts a lecture deck built by tools/slides.py: waits for the images and MathJax, sets every slide that
// does not fit its 1280x720 box in a smaller type (down to DECK_MIN_SCALE; the browser test fails a slide
// that still overflows), then starts reveal.js. `document.body.dataset.deckReady` is set when all is done.
const DECK_W = 1280, DECK_H = 720, DECK_MIN_SCALE = 0.6;

function deckWideParts(section) {
  // display formulas, code and tables wider than their box
  return [...section.querySelectorAll('mjx-container[display="true"], pre, table')]
    .filter((el) => el.scrollWidth > el.clientWidth + 1).length;
}

function deckFit(section) {
  const keep = section.getAttribute("style");
  Object.assign(section.style, {display: "block", visibility: "hidden", position: "absolute", top: "0",
    left: "0", width: `${DECK_W}px`, height: "auto"});
  const fits = () => section.scrollHeight <= DECK_H && section.scrollWidth <= DECK_W && !deckWideParts(section);
  let scale = 1;
  while (!fits() && scale > DECK_MIN_SCALE + 1e-9) {
    scale = Math.round((scale - 0.05) * 100) / 100;
    section.querySelector(".deck-body").style.fontSize = `${Math.round(scale * 100)}%`;
  }
  section.dataset.fit = String(scale);
  if (keep === null) section.removeAttribute("style"); else section.setAttribute("style", keep);
}

window.addEventListener("load", async () => {
  if (window.MathJax && window.MathJax.startup) await window.MathJax.startup.promise;
  await document.fonts.ready;   // MathJax's web fonts: measured after they are in use
  document.querySelectorAll(".reveal .slides > section").forEach(deckFit);
  await Reveal.initialize({
    width: DECK_W, height: DECK_H, margin: 0.02, minScale: 0.1, maxScale: 3, center: true, hash: true,
    slideNumber: "c/t", transition: "none", backgroundTransition: "none", pdfMaxPagesPerSlide: 1,
    pdfSeparateFragments: false, navigationMode: "linear",
  });
  document.body.dataset.deckReady = "1";
});
