"""Reading aids of the course book: deeper sections, self-check quizzes and their answers (a Sphinx extension).

* **Deeper sections.** A section whose title starts with "Deeper:" holds what a first reader can skip
  (verification, floating-point details, long proofs, measurements). It gets the class ``deeper``; on screen
  ``course.js`` collapses it behind a button (keyboard-operable, ``aria-expanded``), in print and without
  JavaScript it is shown in full. Its title stays in the contents and in the PDF's bookmarks.
* **Quizzes.** ``{quiz}`` is a multiple-choice question with one right option and an explanation for every
  option, checked in the page with no kernel and nothing fetched (``course.js``)::

      :::{quiz} What does a small ε promise?
      :label: quiz-promise-small-eps
      :compute: round(math.exp(1) / (1 + math.exp(1)), 2)

      - [x] The output barely depends on any one person. || Right: ...
      - [ ] Nobody can learn anything about anyone. || No: ...
      :::

  ``:compute:`` (optional) is a Python expression (``math``, ``numpy as np``, ``dpcourse``) whose value
  the right option states; ``tests/test_quizzes.py`` evaluates it. The form works from the keyboard (radio
  buttons in a fieldset, a button, a polite live region for the verdict).
* **Answers.** ``{quiz-answers}`` at the end of a chapter lists every quiz of the page with its right
  option and explanation: collapsed on screen like a deeper section, in full in print, so the PDF has the
  answers at the end of each chapter.
"""

from __future__ import annotations

import html
import re

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

_OPTION = re.compile(r"^[-*]\s+\[(?P<mark>[ xX])\]\s+(?P<text>.*?)\s*\|\|\s*(?P<why>.+)$")


class quiz_node(nodes.General, nodes.Element):
    pass


class quiz_answers_node(nodes.General, nodes.Element):
    pass


def _inline(directive, text: str, lineno: int) -> nodes.inline:
    parsed, messages = directive.state.inline_text(text, lineno)
    node = nodes.inline("", "", *parsed)
    return node, messages


class QuizDirective(SphinxDirective):
    """A self-check question: stem in the argument and the body before the options, one ``- [x]`` right option."""

    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = {"label": directives.unchanged_required, "compute": directives.unchanged}

    def run(self):
        label = self.options.get("label", "").strip()
        if not re.fullmatch(r"quiz-[a-z0-9-]+", label):
            raise self.error("a quiz needs :label: quiz-<words> (lowercase, digits, hyphens)")
        stem_lines, options = [], []
        for i, line in enumerate(self.content):
            m = _OPTION.match(line.strip())
            if m:
                options.append((m["mark"] != " ", m["text"], m["why"], self.content_offset + i))
            elif options and line.strip():
                raise self.error(f"{label}: text after the options: {line.strip()!r}")
            elif not options:
                stem_lines.append(line)
        right = [k for k, o in enumerate(options) if o[0]]
        if len(options) < 2 or len(right) != 1:
            raise self.error(f"{label}: a quiz has two or more options '- [ ] text || why', exactly one '- [x]'")
        node = quiz_node(label=label, right=right[0])
        node["ids"].append(label)
        stem = nodes.container(classes=["quiz-stem"])
        if self.arguments:
            para, messages = _inline(self, self.arguments[0], self.lineno)
            stem += nodes.paragraph("", "", para)
        body = "\n".join(stem_lines).strip()
        if body:
            self.state.nested_parse(self.content[:len(stem_lines)], self.content_offset, stem)
        node += stem
        for k, (is_right, text, why, lineno) in enumerate(options):
            opt, _ = _inline(self, text, lineno)
            expl, _ = _inline(self, why, lineno)
            node += nodes.container("", nodes.container("", opt, classes=["quiz-option-text"]),
                                    nodes.container("", expl, classes=["quiz-why"]),
                                    classes=["quiz-option"], right=is_right)
        quizzes = self.env.temp_data.setdefault("course_quizzes", [])
        quizzes.append(label)
        node["number"] = len(quizzes)
        return [node]


class QuizAnswersDirective(SphinxDirective):
    """The answers of every quiz of the page (placed at the end of a chapter)."""

    has_content = False

    def run(self):
        return [quiz_answers_node()]


def _text_html(translator, node) -> str:
    """The HTML of a node's children, rendered by the page's own translator."""
    from sphinx.writers.html5 import HTML5Translator

    sub = HTML5Translator(translator.document, translator.builder)
    for child in node.children:
        child.walkabout(sub)
    return "".join(sub.body)


def visit_quiz_html(self, node):
    label, number = node["label"], node["number"]
    stem = next(c for c in node.children if "quiz-stem" in c["classes"])
    options = [c for c in node.children if "quiz-option" in c["classes"]]
    out = [f'<div class="quiz" id="{label}" data-right="{node["right"]}">',
           f'<fieldset><legend>Self-check {number}</legend>',
           f'<div class="quiz-stem" id="{label}-stem">{_text_html(self, stem)}</div>']
    for k, opt in enumerate(options):
        text = _text_html(self, opt.children[0])
        why = _text_html(self, opt.children[1])
        out.append(f'<div class="quiz-option"><input type="radio" name="{label}" id="{label}-{k}" value="{k}">'
                   f'<label for="{label}-{k}">{text}</label>'
                   f'<div class="quiz-why" id="{label}-{k}-why" hidden>{why}</div></div>')
    out.append(f'</fieldset><button type="button" class="quiz-check" aria-describedby="{label}-stem">'
               'Check my answer</button><p class="quiz-verdict" role="status" aria-live="polite"></p></div>')
    self.body.append("\n".join(out))
    raise nodes.SkipNode


def visit_quiz_other(self, node):
    """Other builders (text, LaTeX): the question and its options as a list."""
    raise nodes.SkipNode


def _answers(app, doctree, docname):
    quizzes = list(doctree.findall(quiz_node))
    for placeholder in list(doctree.findall(quiz_answers_node)):
        if not quizzes:
            placeholder.replace_self([])
            continue
        section = nodes.container(classes=["quiz-answers"])
        section += nodes.rubric("", "Answers to the self-check questions")
        items = nodes.enumerated_list()
        for q in quizzes:
            options = [c for c in q.children if "quiz-option" in c["classes"]]
            right = options[q["right"]]
            item = nodes.list_item()
            para = nodes.paragraph()
            para += nodes.strong("", f"Self-check {q['number']}: ")
            para += right.children[0].deepcopy().children
            para += nodes.Text(" ")
            para += right.children[1].deepcopy().children
            item += para
            items += item
        section += items
        placeholder.replace_self(section)


def _deeper_sections(app, doctree):
    for section in doctree.findall(nodes.section):
        title = next(iter(section.findall(nodes.title)), None)
        if title is not None and title.astext().startswith("Deeper:"):
            section["classes"].append("deeper")


def setup(app):
    app.add_node(quiz_node, html=(visit_quiz_html, None), latex=(visit_quiz_other, None),
                 text=(visit_quiz_other, None), man=(visit_quiz_other, None), texinfo=(visit_quiz_other, None))
    app.add_node(quiz_answers_node, html=(visit_quiz_other, None), latex=(visit_quiz_other, None),
                 text=(visit_quiz_other, None), man=(visit_quiz_other, None), texinfo=(visit_quiz_other, None))
    app.add_directive("quiz", QuizDirective)
    app.add_directive("quiz-answers", QuizAnswersDirective)
    app.connect("doctree-read", _deeper_sections)
    app.connect("doctree-resolved", _answers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
