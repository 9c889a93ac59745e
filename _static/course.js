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
