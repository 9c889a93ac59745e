// The visible sidebar buttons forward their clicks to the first button of the same class, the one
// that pydata-sphinx-theme 0.17.1 (dialogs on narrow screens) and sphinx-book-theme 1.3.0 (collapse
// on wide screens) bound their handlers to. See _ext/course_html.py.
document.addEventListener("DOMContentLoaded", () => {
  for (const cls of ["primary-toggle", "secondary-toggle"]) {
    const buttons = document.querySelectorAll("." + cls);
    if (buttons.length < 2) continue;
    const bound = buttons[0];
    buttons.forEach((button, i) => {
      if (i === 0) return;
      button.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopPropagation();
        bound.click();
      });
    });
  }
});

// ipywidgets' HTML manager typesets widget labels with the MathJax 2 call MathJax.Hub.Queue; the
// book loads MathJax 3, which has no Hub, so every slider threw "reading 'Queue'". Map the call
// onto MathJax 3's typesetPromise.
function courseMathJaxHubShim() {
  const mj = window.MathJax;
  if (!mj || mj.Hub) return;
  mj.Hub = {
    Queue: (job) => {
      const el = Array.isArray(job) ? job[2] : undefined;
      if (el && window.MathJax.typesetPromise) window.MathJax.typesetPromise([el]).catch(() => {});
    },
  };
}
courseMathJaxHubShim();
document.addEventListener("DOMContentLoaded", courseMathJaxHubShim);
window.addEventListener("load", courseMathJaxHubShim);

// Live figures (dpcourse.plots.explorer): each slider picks one value of its control; the figure of
// every combination was drawn at build time by dpcourse, as base + (row-major index) + ".png".
function courseExplorers() {
  document.querySelectorAll(".dpcourse-explorer-live").forEach((box) => {
    const shape = JSON.parse(box.dataset.shape);
    const inputs = [...box.querySelectorAll("input[type=range]")];
    const img = box.querySelector("img.dpcourse-explorer-figure");
    const update = () => {
      let flat = 0;
      const parts = [];
      inputs.forEach((input, i) => {
        const labels = JSON.parse(input.dataset.labels);
        flat = flat * shape[i] + Number(input.value);
        input.nextElementSibling.textContent = labels[Number(input.value)];
        parts.push(`${input.dataset.name} = ${labels[Number(input.value)]}`);
      });
      img.src = `${box.dataset.base}${flat}.png`;
      img.alt = `${box.dataset.alt} (${parts.join(", ")})`;
    };
    inputs.forEach((input) => input.addEventListener("input", update));
  });
}
document.addEventListener("DOMContentLoaded", courseExplorers);

// Wide display formulas: one that is at most a quarter wider than its column is set in a smaller size so
// that it fits (at 1280 px no formula overflows); a wider one keeps its size and scrolls sideways, with
// the shadows of course.css showing that it does. Re-fitted when the window changes width.
const COURSE_MIN_MATH_SCALE = 0.75;
function courseFitMath() {
  const boxes = [...document.querySelectorAll('mjx-container[jax="CHTML"][display="true"]')];
  boxes.forEach((box) => { box.style.fontSize = ""; });
  const ratios = boxes.map((box) => (box.scrollWidth > box.clientWidth + 1 && box.clientWidth > 0
    ? box.clientWidth / box.scrollWidth : 1));
  boxes.forEach((box, i) => {
    if (ratios[i] < 1 && ratios[i] >= COURSE_MIN_MATH_SCALE) {
      box.style.fontSize = `${Math.floor(ratios[i] * 1000) / 10}%`;
    }
  });
}
window.courseFitMath = courseFitMath;
window.addEventListener("load", () => {
  const startup = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
  if (startup) startup.then(courseFitMath);
  else courseFitMath();
});
window.addEventListener("resize", courseFitMath);
