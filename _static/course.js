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
    const descriptions = JSON.parse(box.dataset.descriptions || "[]");
    const live = box.querySelector(".dpcourse-explorer-said");
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
      const said = descriptions[flat] || "";
      img.alt = `${box.dataset.alt} (${parts.join(", ")})` + (said ? `: ${said}` : "");
      if (live) live.textContent = `${parts.join(", ")}: ${said}`;
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

// Deeper sections (a title "Deeper: ...") and the quiz answers are collapsed on screen behind a button that
// works from the keyboard; printed, or without JavaScript, they are shown in full.
function courseCollapsibles() {
  const boxes = document.querySelectorAll("section.deeper, div.quiz-answers");
  boxes.forEach((box, n) => {
    if (box.dataset.collapsible) return;
    box.dataset.collapsible = "1";
    const heading = box.querySelector(":scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > p.rubric");
    if (!heading) return;
    const body = document.createElement("div");
    body.className = "collapsible-body";
    body.id = (box.id || "collapsible") + "-body-" + n;
    while (heading.nextSibling) body.appendChild(heading.nextSibling);
    box.appendChild(body);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "collapsible-toggle";
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-controls", body.id);
    const what = box.classList.contains("deeper") ? "this deeper section" : "the answers";
    button.textContent = "Show " + what;
    body.hidden = true;
    button.addEventListener("click", () => {
      const open = button.getAttribute("aria-expanded") === "true";
      button.setAttribute("aria-expanded", String(!open));
      button.textContent = (open ? "Show " : "Hide ") + what;
      body.hidden = open;
    });
    heading.insertAdjacentElement("afterend", button);
    // a link to something inside (a theorem cited from elsewhere) opens the section first
    if (location.hash && body.querySelector(CSS.escape ? "#" + CSS.escape(location.hash.slice(1)) : location.hash)) {
      button.click();
    }
  });
}
document.addEventListener("DOMContentLoaded", courseCollapsibles);
window.addEventListener("hashchange", () => {
  const target = location.hash && document.getElementById(location.hash.slice(1));
  const body = target && target.closest(".collapsible-body");
  if (body && body.hidden) {
    const button = document.querySelector(`[aria-controls="${body.id}"]`);
    if (button) button.click();
    target.scrollIntoView();
  }
});
window.addEventListener("beforeprint", () => {
  document.querySelectorAll(".collapsible-body").forEach((b) => { b.hidden = false; });
});

// Self-check quizzes: pick an option, press the button; the verdict and the explanation of the chosen
// option appear (announced by screen readers through the live region).
function courseQuizzes() {
  document.querySelectorAll("div.quiz").forEach((quiz) => {
    const button = quiz.querySelector("button.quiz-check");
    const verdict = quiz.querySelector(".quiz-verdict");
    if (!button || button.dataset.bound) return;
    button.dataset.bound = "1";
    button.addEventListener("click", () => {
      const chosen = quiz.querySelector("input[type=radio]:checked");
      quiz.querySelectorAll(".quiz-why").forEach((w) => { w.hidden = true; });
      if (!chosen) {
        verdict.textContent = "Choose an option first.";
        return;
      }
      const right = chosen.value === quiz.dataset.right;
      const why = document.getElementById(chosen.id + "-why");
      if (why) why.hidden = false;
      verdict.textContent = (right ? "Right. " : "Not quite. ") + (why ? why.textContent : "");
      verdict.className = "quiz-verdict " + (right ? "quiz-right" : "quiz-wrong");
    });
  });
}
document.addEventListener("DOMContentLoaded", courseQuizzes);

// Keyboard access (WCAG 2.1 AA, checked by axe-core in the browser test): a box that scrolls sideways (a wide
// formula, table or output) can be focused, so the keyboard can scroll it; re-checked when the width changes.
function courseScrollableFocus() {
  const boxes = document.querySelectorAll('mjx-container[jax="CHTML"], .dpcourse-explorer-scroll, ' +
    '.dpcourse-figure-scroll, .bd-article table, .cell_output pre, .output pre, div.highlight pre');
  boxes.forEach((box) => {
    const style = getComputedStyle(box);
    const scrolls = (style.overflowX === "auto" || style.overflowX === "scroll") && box.scrollWidth > box.clientWidth;
    if (scrolls && !box.hasAttribute("tabindex")) {
      box.setAttribute("tabindex", "0");
      box.dataset.courseFocus = "1";
    } else if (!scrolls && box.dataset.courseFocus) {
      box.removeAttribute("tabindex");
      delete box.dataset.courseFocus;
    }
  });
}
window.addEventListener("load", () => {
  const startup = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
  if (startup) startup.then(() => requestAnimationFrame(courseScrollableFocus));
  else courseScrollableFocus();
});
window.addEventListener("resize", () => requestAnimationFrame(courseScrollableFocus));

// The theme's search buttons are named "Search" while they show "Search" and a shortcut: a speech-input user
// says what they see, so the name holds the visible text (WCAG 2.5.3, label in name).
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("button.search-button-field").forEach((button) => {
    const visible = button.textContent.replace(/\s+/g, " ").trim();
    if (visible) button.setAttribute("aria-label", visible);
  });
});
