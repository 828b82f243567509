"""Answers to trust: confidence from the question's words, the hedge that names what the wiki
lacks, quotes never cut inside markup or left on a colon, framing in the question's language."""

from __future__ import annotations

import pytest

from shared.records import Passage
from shared.retrieval import evidence, framing
from shared.retrieval.answer_checks import review
from shared.retrieval.extractive import compose
from shared.retrieval.fusion import Ranked
from shared.retrieval.lexical import LexicalIndex
from shared.retrieval.prompts import help_prompt
from shared.retrieval.reading import closed, units
from shared.retrieval.tokens import named_terms
from shared.text.language import language
from tests.unit.test_retrieval_evidence import row


def chunk(text: str, slug: str = "p", fused: float = 0.5, heading: str = "Uso") -> Ranked:
    return Ranked(slug, "P", heading, text, 0, fused, 0.5, 0.5)


WIKI = LexicalIndex(
    [
        row(0, "El rebuild lo dispara Cloud Scheduler cada 30 minutos."),
        row(1, "Con FastAPI se declaran dependencias con Depends y se usa Pydantic."),
        row(2, "Para consumir mensajes de una cola se usa un worker en segundo plano."),
    ]
)


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("¿Cómo conecto FastAPI con Kafka?", ["FastAPI", "Kafka"]),
        ("how do i use getServerSideProps in Next.js", ["getServerSideProps", "Next.js"]),
        (
            "What is the difference between client:load and client:idle?",
            ["client:load", "client:idle"],
        ),
        ("Kafka consumer offsets", []),  # a capital opening the sentence names nothing
        ("¿cada cuánto se reconstruye el sitio?", []),
    ],
)
def test_named_terms_are_capitalised_inside_a_sentence_or_shaped_like_code(
    question: str, names: list[str]
) -> None:
    """Names are what a vocabulary check can judge; plain words may be inflections."""
    assert named_terms(question) == names


def test_a_name_the_wiki_never_uses_makes_the_answer_low_and_the_hedge_names_it() -> None:
    """Kafka is nowhere in the wiki's postings: low, whatever the scores, and named."""
    lead = chunk("Para consumir mensajes de una cola se usa un worker en segundo plano.", fused=0.9)
    judged = evidence.judge("How do I consume messages from Kafka?", [lead], [lead], WIKI)
    assert judged == evidence.Judgement("low", ("Kafka",))
    assert framing.hedge("en", judged.unmentioned) == "The wiki doesn't mention Kafka; the closest:"
    assert framing.hedge("es", ("Kafka", "Next.js")) == (
        "La wiki no menciona Kafka ni `Next.js`; lo más cercano:"
    )


def test_a_lead_page_without_the_questions_words_is_low_and_one_with_them_high() -> None:
    """The lead must hold the question's words (idf-weighted), not only score well."""
    about_deps = chunk("Con FastAPI se declaran dependencias con Depends y se usa Pydantic.")
    about_rebuild = chunk("El rebuild lo dispara Cloud Scheduler cada 30 minutos.")
    question = "¿Cada cuántos minutos dispara Cloud Scheduler el rebuild?"
    assert evidence.judge(question, [about_rebuild], [about_rebuild], WIKI).confidence == "high"
    assert evidence.judge(question, [about_deps], [about_deps], WIKI).confidence == "low"


def test_a_known_name_the_lead_page_never_says_is_low() -> None:
    """FastAPI is in the wiki, but not on the page that leads: that page is about something
    else (acronyms such as API are generic words and do not count)."""
    lead = chunk("El rebuild lo dispara Cloud Scheduler cada 30 minutos con la API.")
    question = "¿Cada cuántos minutos dispara el rebuild FastAPI?"
    assert evidence.unheld_names(question, evidence.lead_tokens([lead])) == ["FastAPI"]
    assert evidence.judge(question, [lead], [lead], WIKI).confidence == "low"


def test_a_lead_page_that_only_names_what_the_question_asks_about_is_low() -> None:
    """A page comparing frameworks names Pydantic; a question about Pydantic's validators
    wants more than the name: without any of its other words the lead is low. With one of
    them, or with a question of names alone, the other rules decide."""
    names_it = chunk("Con FastAPI se declaran dependencias con Depends y se usa Pydantic.")
    held = evidence.lead_tokens([names_it])
    question = "¿Cómo declaro dependencias con Pydantic?"
    assert evidence.judge(question, [names_it], [names_it], WIKI).confidence == "high"
    asking_more = "¿Cómo consumo mensajes con Pydantic?"  # its words' share alone passes
    assert evidence.lead_share(asking_more, held, WIKI) >= evidence.LEAD_SHARE
    assert evidence.names_only(asking_more, held, WIKI)
    assert evidence.judge(asking_more, [names_it], [names_it], WIKI).confidence == "low"
    assert not evidence.names_only("¿FastAPI con Pydantic?", held, WIKI)


def test_the_check_adds_the_naming_hedge_and_recognises_it_as_a_hedge() -> None:
    """A model answer without the hedge gets the one that names; with it, left alone."""
    passages = [Passage(1, "p", "P", "Uso", "Un worker en segundo plano.", 0.5)]
    added = review("Use a worker [1].", passages, "low", "en", unmentioned=("Kafka",))
    assert added.text == "The wiki doesn't mention Kafka; the closest:\n\nUse a worker [1]."
    again = review(added.text, passages, "low", "en", unmentioned=("Kafka",))
    assert again.text == added.text


def test_gemini_is_told_the_names_the_wiki_never_mentions_and_the_opening() -> None:
    """Same signal to the model: the weak-evidence note names them and gives the hedge."""
    passages = [Passage(1, "p", "P", "Uso", "Un worker en segundo plano.", 0.5)]
    prompt = help_prompt("¿Cómo uso Kafka?", passages, "low", ("Kafka",))
    assert "The wiki never mentions: Kafka" in prompt
    assert "Begin the answer with: La wiki no menciona Kafka; lo más cercano:" in prompt


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ('La lectura o <abbr title="Input/Output - entrada', "La lectura o"),
        ("Es un proceso [parecida a un", "Es un proceso"),
        ("Usa `Depends y", "Usa"),
        ("Ver [la guía](guia.md) y **esto", "Ver [la guía](guia.md) y"),
        ("Multiplica 2 * 3 con **cuidado**.", "Multiplica 2 * 3 con **cuidado**."),
    ],
)
def test_a_sentence_is_cut_before_markup_it_opens_and_never_closes(text: str, kept: str) -> None:
    """What chunking cut in half is not quoted raw; balanced markup is left alone."""
    assert closed(text) == kept


def test_a_sentence_is_never_split_inside_a_link() -> None:
    """A link text with colons ('Pydantic: Conceptos: Config') stays one sentence."""
    found = units("Lee más en [Pydantic: Conceptos: Config](https://x.dev/config/). Fin aquí.")
    assert found[0].text == "Lee más en [Pydantic: Conceptos: Config](https://x.dev/config/)."


def passage(text: str, number: int = 1) -> Passage:
    return Passage(number, "guide—css", "CSS", "Files", text, 0.8)


def test_a_lead_in_carries_on_to_the_code_it_introduces_even_when_not_asked_how() -> None:
    """A quote ending in ':' is followed by what it introduces."""
    text = (
        "The stylesheet lives in a file of its own. Set the class variable to its path:\n\n"
        "```python\nCSS_PATH = 'app.tcss'\n```"
    )
    answer = compose("Where does the stylesheet of my app live?", [passage(text)])
    assert "to its path:\n\n```python\nCSS_PATH = 'app.tcss'\n```" in answer


def test_a_lead_in_that_introduces_nothing_shown_is_not_quoted() -> None:
    """A colon line followed by more prose is dropped rather than left hanging."""
    text = "The stylesheet lives in a file of its own with these rules:\n\nEach rule is a block."
    answer = compose("Where does the stylesheet of my app live?", [passage(text)])
    assert "rules:" not in answer
    assert "Each rule is a block." in answer


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("run blocking code in a thread instead of async", "en"),
        ("deploy my astro site to github pages", "en"),
        ("Add rows and columns to a table widget", "en"),
        ("instalar textual y las herramientas de desarrollo", "es"),
        ("como subo archivos", "es"),
    ],
)
def test_the_framing_follows_the_questions_language_whatever_its_case(
    question: str, lang: str
) -> None:
    """Lower case, no question mark, an instruction: still the right language."""
    assert language(question) == lang
    opening = compose(question, [passage("Los widgets se añaden con el método mount.")])
    assert opening.startswith(framing.LEAD[lang].removesuffix(":"))


def test_the_language_note_names_the_quotes_language_truly() -> None:
    """English quotes for an English question: no note; Spanish quotes: 'in Spanish';
    English quotes for a Spanish question: 'en inglés'."""
    english = passage("The stylesheet lives in a file of its own, next to the app module.")
    spanish = passage("La hoja de estilos vive en un archivo propio, junto al módulo de la app.")
    assert compose("Where does the stylesheet live?", [english]).startswith("From the wiki:\n")
    assert compose("Where does the stylesheet live?", [spanish]).startswith(
        "From the wiki (these passages are in Spanish):"
    )
    assert compose("¿Dónde vive la hoja de estilos?", [english]).startswith(
        "Según la wiki (estos pasajes están en inglés):"
    )


def test_a_fence_indented_in_a_list_item_is_quoted_as_a_fence() -> None:
    """A fence under a list item (MDX steps) is code, its indentation dropped."""
    found = units("- Instala el paquete:\n\n    ```shell\n    npm install x\n    ```\n")
    assert found[1].kind == "code"
    assert found[1].text == "```shell\nnpm install x\n```"


def test_a_block_the_chunk_ends_inside_is_closed() -> None:
    """An unterminated fence is closed where the chunk ends."""
    found = units("Usa:\n\n```yaml\non:\n  push:\n")
    assert found[1].text == "```yaml\non:\n  push:\n```"


def test_a_sentence_opening_inside_a_links_tail_starts_after_it() -> None:
    """The overlap chunking carries may begin inside an image's alt text."""
    assert closed("10 44 00](https://x/y.png) Even with this fix, it works.") == (
        "Even with this fix, it works."
    )


def test_a_lead_page_another_page_nearly_ties_is_low() -> None:
    """Two pages at 0.95 of each other: a toss-up, so low, unless the lead chunk is close
    in meaning to the question (cosine 0.50 or more); a clear lead stays high."""
    about = "El rebuild lo dispara Cloud Scheduler cada 30 minutos."
    question = "¿Cada cuántos minutos dispara Cloud Scheduler el rebuild?"
    lead = Ranked("a", "A", "Uso", about, 0, 0.6, 0.45, 0.75)
    close = Ranked("b", "B", "Uso", about, 0, 0.57, 0.45, 0.69)
    far = Ranked("b", "B", "Uso", about, 0, 0.3, 0.45, 0.15)
    near_in_meaning = Ranked("a", "A", "Uso", about, 0, 0.6, 0.55, 0.65)
    assert evidence.judge(question, [lead, close], [lead, close], WIKI).confidence == "low"
    assert evidence.judge(question, [lead, far], [lead, far], WIKI).confidence == "high"
    both = [near_in_meaning, close]
    assert evidence.judge(question, both, both, WIKI).confidence == "high"


def test_a_quote_never_opens_on_the_rest_of_a_sentence_chunking_cut() -> None:
    """The overlap began inside a link: once its tail is dropped, what is left opens on a
    comma (", y también incluye:"). The quote opens at the list instead."""
    text = (
        "Transitions](https://example.dev/view-transitions/), y también incluye:\n\n"
        "- Algunas opciones de animación integradas, como `fade` y `slide`.\n"
        "- Soporte para animaciones de navegación hacia adelante y hacia atrás."
    )
    answer = compose("¿Cómo consigo animaciones de navegación entre páginas?", [passage(text)])
    body = answer.split("\n\n", 1)[1]
    assert not body.lstrip().startswith(","), answer
    assert "animaciones de navegación hacia adelante" in answer
