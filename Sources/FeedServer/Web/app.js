// feedsh's web page: one page whose address names the view, over /api/ (the
// same values `--json` and mcp give), and one player that keeps playing while
// you move between views and saves your place in the library, where the
// terminal and sync see it. Text from feeds is only ever put in as text; show
// notes come as markup already passed through the server's allow-list.
"use strict";

const $ = (selector) => document.querySelector(selector);
const view = $("#view");
const audio = $("#audio");

/** An element with attributes and children (strings become text nodes). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An SVG element (charts). */
function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children.flat()) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

async function api(path, options = {}) {
  const response = await fetch(path, { credentials: "same-origin", ...options });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || `${response.status} ${response.statusText}`);
  return body;
}

function post(path, data = {}) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data) });
}

/** 75 → "1:15", 3725 → "1:02:05". */
function clock(seconds) {
  const whole = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** 5400 → "1 h 30 min", 300 → "5 min". */
function span(seconds) {
  if ((seconds || 0) < 60) return `${Math.round(seconds || 0)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function day(iso) {
  return iso ? new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" }) : "";
}

let toastTimer = null;
function toast(text) {
  const box = $("#toast");
  box.textContent = text;
  box.classList.add("shown");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => box.classList.remove("shown"), 2500);
}

/** What an episode's line says of it: new, at 12:34, played, downloaded. */
function statusWords(episode) {
  const words = [];
  if (episode.played) words.push("played");
  else if (episode.position > 0) words.push(`at ${clock(episode.position)}`);
  else if (episode.new) words.push("new");
  const state = episode.status && episode.status.state;
  if (state === "downloaded") words.push("downloaded");
  else if (state === "downloading" || state === "queued") words.push("downloading");
  else if (state === "paused") words.push("download paused");
  return words;
}

function badges(words) {
  return words.map((word) => el("span", { class: "badge" }, word));
}

function artwork(number, title) {
  const tile = el("span", { class: "tile", "aria-hidden": "true" }, (title || "?").trim().charAt(0).toUpperCase());
  const image = el("img", { class: "art", alt: "", src: `/api/artwork/${number}`, loading: "lazy" });
  image.addEventListener("error", () => image.replaceWith(tile));
  return image;
}

// Views: each draws into <main> from what /api/ answers.

async function home() {
  const { subscriptions } = await api("/api/subscriptions");
  document.title = "feedsh";
  if (subscriptions.length === 0) {
    return [el("h1", {}, "Podcasts"), el("p", {}, "No subscriptions yet: 'subscribe URL' in feedsh makes one.")];
  }
  return [
    el("h1", {}, "Podcasts"),
    el("ul", { class: "list" }, subscriptions.map((podcast) =>
      el("li", {},
        artwork(podcast.number, podcast.title),
        el("div", { class: "grow" },
          el("a", { class: "title", href: `/p/${podcast.number}` }, podcast.title),
          el("span", { class: "muted" },
            `${podcast.episodeCount} episodes · ${podcast.newCount} new · ${podcast.downloadedCount} downloaded`,
            podcast.error ? ` · last update failed: ${podcast.error}` : ""))))),
  ];
}

async function podcastPage(number) {
  const { podcast, episodes } = await api(`/api/podcasts/${number}`);
  document.title = `${podcast.title} · feedsh`;
  return [
    el("h1", {}, podcast.title),
    podcast.author ? el("p", { class: "muted" }, podcast.author) : null,
    el("ul", { class: "list" }, episodes.map((episode) =>
      el("li", {},
        el("div", { class: "grow" },
          el("a", { class: "title", href: `/e/${episode.ref}` }, episode.title),
          el("span", { class: "muted" }, [episode.ref, day(episode.date), episode.seconds ? clock(episode.seconds) : ""]
            .filter(Boolean).join(" · "), " "),
          badges(statusWords(episode)))))),
  ];
}

async function episodePage(ref) {
  const data = await api(`/api/episodes/${ref}`);
  const episode = data.episode;
  document.title = `${episode.title} · feedsh`;
  const notes = el("div", { class: "notes" });
  // Markup from the server's allow-list (ShowNotes): no script, style, frame or event attribute.
  notes.innerHTML = data.notesHTML;
  const chapters = el("div", { id: "chapters" });
  const transcript = el("div", { id: "transcript" });
  const bookmarks = el("ul", { class: "list", id: "bookmarks" }, data.bookmarks.map(bookmarkLine));
  const note = el("input", { type: "text", placeholder: "Note (optional)", "aria-label": "Bookmark note", maxlength: 500 });
  const page = [
    el("h1", {}, episode.title),
    el("p", { class: "muted" },
      el("a", { href: `/p/${data.podcastNumber}` }, episode.podcast), " · ", day(episode.date),
      episode.seconds ? ` · ${clock(episode.seconds)}` : "", " ", badges(statusWords(episode))),
    el("div", { class: "actions" }, playButton(ref, data)),
    notes,
    chapters,
    transcript,
    el("h2", {}, "Bookmarks"),
    bookmarks,
    el("form", {
      class: "row",
      onsubmit: async (event) => {
        event.preventDefault();
        if (player.ref !== ref) return toast("Play this episode to bookmark a moment of it.");
        await player.bookmark(note.value);
        note.value = "";
      },
    }, note, el("button", { type: "submit" }, "Bookmark now")),
  ];
  if (episode.chapters) loadChapters(ref, chapters);
  if (episode.transcripts && episode.transcripts.length > 0) loadTranscript(ref, transcript);
  return page;
}

function bookmarkLine(bookmark) {
  return el("li", {},
    el("div", { class: "grow" },
      el("span", { class: "title" }, `${bookmark.number} at ${clock(bookmark.at)}`, bookmark.note ? ` — ${bookmark.note}` : ""),
      el("span", { class: "muted" }, [bookmark.title, bookmark.words ? `“${bookmark.words}”` : ""].filter(Boolean).join(" · "))),
    bookmark.ref ? el("button", { type: "button", onclick: () => player.play(bookmark.ref, bookmark.at) }, "Play") : null);
}

function playButton(ref, data) {
  if (data.media) {
    return el("button", { type: "button", class: "primary", onclick: () => player.play(ref) },
      data.episode.position > 0 && !data.episode.played ? `Play from ${clock(data.episode.position)}` : "Play");
  }
  const button = el("button", { type: "button", class: "primary" }, "Download");
  button.addEventListener("click", async () => {
    button.disabled = true;
    button.textContent = "Downloading…";
    try {
      await post(`/api/episodes/${ref}/download`);
      await waitForDownload(ref, button);
    } catch (error) {
      button.textContent = `Download failed: ${error.message}`;
    }
  });
  return button;
}

async function waitForDownload(ref, button) {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const data = await api(`/api/episodes/${ref}`);
    const status = data.episode.status || {};
    if (data.media) return button.replaceWith(playButton(ref, data));
    if (status.state === "failed") throw new Error(status.message || "failed");
    if (status.bytes && status.total) button.textContent = `Downloading… ${Math.floor((100 * status.bytes) / status.total)} %`;
  }
}

async function loadChapters(ref, box) {
  try {
    const { chapters, problem } = await api(`/api/episodes/${ref}/chapters`);
    if (problem) return box.replaceChildren(el("p", { class: "muted" }, `Chapters: ${problem}`));
    if (chapters.length === 0) return;
    if (player.ref === ref) player.chapters = chapters;
    box.replaceChildren(el("h2", {}, "Chapters"), el("ul", { class: "list" }, chapters.map((chapter) =>
      el("li", { class: "chapter", "data-start": chapter.start },
        el("span", { class: "muted" }, clock(chapter.start)),
        el("span", { class: "grow" }, chapter.title || `Chapter ${chapter.number}`),
        el("button", { type: "button", onclick: () => player.play(ref, chapter.start) }, "Play")))));
    player.showChapter();
  } catch (error) {
    box.replaceChildren(el("p", { class: "muted" }, `Chapters: ${error.message}`));
  }
}

async function loadTranscript(ref, box) {
  box.replaceChildren(el("h2", {}, "Transcript"), el("p", { class: "muted" }, "Loading…"));
  try {
    const { paragraphs } = await api(`/api/episodes/${ref}/transcript`);
    const list = el("div", { class: "transcript", id: "cues" }, paragraphs.map((paragraph) =>
      el("button", {
        type: "button",
        class: "cue",
        "data-start": paragraph.start ?? "",
        onclick: () => paragraph.start !== null && player.play(ref, paragraph.start),
      },
      paragraph.start !== null ? el("span", { class: "at" }, clock(paragraph.start)) : null,
      paragraph.speaker ? el("strong", {}, `${paragraph.speaker}: `) : null,
      paragraph.text)));
    box.replaceChildren(el("h2", {}, "Transcript"), list);
    player.showCue();
  } catch (error) {
    box.replaceChildren(el("h2", {}, "Transcript"), el("p", { class: "muted" }, error.message));
  }
}

async function findPage() {
  const words = new URLSearchParams(location.search).get("q") || "";
  const input = el("input", { type: "search", name: "q", value: words, placeholder: "Words said or written", "aria-label": "Find" });
  const form = el("form", {
    class: "row",
    onsubmit: (event) => {
      event.preventDefault();
      go(`/find?q=${encodeURIComponent(input.value)}`);
    },
  }, input, el("button", { type: "submit" }, "Find"));
  document.title = words ? `${words} · feedsh` : "Find · feedsh";
  if (!words) return [el("h1", {}, "Find"), form];
  const { hits } = await api(`/api/find?q=${encodeURIComponent(words)}`);
  return [
    el("h1", {}, "Find"), form,
    hits.length === 0 ? el("p", {}, "Nothing found.") : el("ul", { class: "list" }, hits.map((hit) =>
      el("li", {},
        el("div", { class: "grow" },
          el("a", { class: "title", href: `/e/${hit.ref}` }, hit.title),
          el("span", { class: "muted" }, `${hit.podcast} · ${hit.snippet}`)),
        el("button", { type: "button", class: "hit", onclick: () => player.play(hit.ref, hit.at ?? undefined) },
          hit.at !== null ? `Play at ${clock(hit.at)}` : "Play")))),
  ];
}

async function queuePage() {
  const { queue } = await api("/api/queue");
  document.title = "Queue · feedsh";
  if (queue.length === 0) return [el("h1", {}, "Queue"), el("p", {}, "The queue is empty: 'queue add P:E' in feedsh adds to it.")];
  return [
    el("h1", {}, "Queue"),
    el("div", { class: "actions" }, el("button", { type: "button", class: "primary", onclick: () => player.playQueue() }, "Play the queue")),
    el("ul", { class: "list" }, queue.map((item) =>
      el("li", {},
        el("span", { class: "muted" }, item.position),
        el("div", { class: "grow" },
          el("a", { class: "title", href: `/e/${item.ref}` }, item.title),
          el("span", { class: "muted" }, `${item.podcast} · ${item.ref}`))))),
  ];
}

async function bookmarksPage() {
  const { bookmarks } = await api("/api/bookmarks");
  document.title = "Bookmarks · feedsh";
  return [
    el("h1", {}, "Bookmarks"),
    bookmarks.length === 0 ? el("p", {}, "No bookmarks yet: ★ or b while playing makes one.") : el("ul", { class: "list" }, bookmarks.map(bookmarkLine)),
  ];
}

/** A bar chart: one bar a group, the value beside it. */
function barChart(title, groups, value, label) {
  const rows = groups.filter((group) => value(group) > 0);
  if (rows.length === 0) return el("p", { class: "muted" }, `${title}: nothing yet.`);
  const most = Math.max(...rows.map(value));
  const height = 22;
  const chart = svg("svg", { class: "chart", viewBox: `0 0 400 ${rows.length * height + 4}`, role: "img", "aria-label": title },
    rows.map((group, index) => {
      const width = Math.max(2, (value(group) / most) * 220);
      const y = index * height + 2;
      return svg("g", {},
        svg("text", { x: 0, y: y + 14 }, (group.name || "").slice(0, 22)),
        svg("rect", { class: "bar", x: 140, y: y + 3, width, height: height - 8, rx: 3 }),
        svg("text", { x: 144 + width, y: y + 14 }, label(value(group))));
    }));
  return el("figure", {}, el("figcaption", {}, title), chart);
}

function numbersTable(groups) {
  return el("table", { class: "numbers" },
    el("thead", {}, el("tr", {}, ["", "listened", "heard", "plays", "finished", "saved by speed", "saved by silence"].map((name) => el("th", {}, name)))),
    el("tbody", {}, groups.map((group) => el("tr", {},
      el("td", {}, group.name || "all"),
      el("td", { class: "n" }, span(group.listened)), el("td", { class: "n" }, span(group.heard)),
      el("td", { class: "n" }, group.plays), el("td", { class: "n" }, group.finished),
      el("td", { class: "n" }, span(group.savedBySpeed)), el("td", { class: "n" }, span(group.savedBySilence))))));
}

async function statsPage() {
  const [weeks, podcasts] = await Promise.all([api("/api/stats?by=week"), api("/api/stats?by=podcast")]);
  document.title = "Stats · feedsh";
  const saved = [
    { name: "by speed", value: weeks.savedBySpeed },
    { name: "by silence", value: weeks.savedBySilence },
  ];
  return [
    el("h1", {}, "Listening"),
    el("p", {}, `${span(weeks.listened)} listened in ${weeks.plays} plays, ${weeks.finished} finished; ` +
      `${span(weeks.savedBySpeed + weeks.savedBySilence)} saved.`),
    el("div", { class: "charts" },
      barChart("Time listened by week", weeks.groups, (group) => group.listened, span),
      barChart("Time listened by podcast", podcasts.groups, (group) => group.listened, span),
      barChart("Time saved", saved, (group) => group.value, span)),
    el("h2", {}, "By week"), numbersTable(weeks.groups),
    el("h2", {}, "By podcast"), numbersTable(podcasts.groups),
  ];
}

const routes = [
  [/^\/$/, home],
  [/^\/p\/(\d+)$/, podcastPage],
  [/^\/e\/(\d+:\d+)$/, episodePage],
  [/^\/find$/, findPage],
  [/^\/queue$/, queuePage],
  [/^\/stats$/, statsPage],
  [/^\/bookmarks$/, bookmarksPage],
];

let drawing = 0;
async function render() {
  const path = location.pathname;
  for (const link of document.querySelectorAll("nav a")) {
    if (link.getAttribute("href") === path) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const turn = ++drawing;
  for (const [pattern, draw] of routes) {
    const match = path.match(pattern);
    if (!match) continue;
    try {
      const content = await draw(...match.slice(1));
      if (turn === drawing) view.replaceChildren(...content.filter(Boolean));
    } catch (error) {
      if (turn === drawing) view.replaceChildren(el("p", { class: "error" }, error.message));
    }
    return;
  }
  view.replaceChildren(el("h1", {}, "Not here"), el("p", {}, el("a", { href: "/" }, "Your podcasts")));
}

function go(address) {
  history.pushState(null, "", address);
  window.scrollTo(0, 0);
  render();
}

// Links within the page change the view, not the document: the player plays on.
document.addEventListener("click", (event) => {
  const link = event.target.closest("a");
  if (!link || link.origin !== location.origin || link.target || event.defaultPrevented) return;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  go(link.pathname + link.search);
});
window.addEventListener("popstate", render);

// The player.

const player = {
  ref: null,
  data: null,
  chapters: [],
  /** Where this stretch of listening began, for the history and sync. */
  startedAt: null,
  lastSave: 0,
  pausedAt: null,
  /** The queue being played through, when it is. */
  queue: null,

  async play(ref, at) {
    try {
      if (this.ref !== ref) await this.load(ref, at);
      else if (at !== undefined) audio.currentTime = at;
      await audio.play();
    } catch (error) {
      toast(error.message);
    }
  },

  async load(ref, at) {
    if (this.ref && !audio.paused) audio.pause();
    const data = await api(`/api/episodes/${ref}`);
    if (!data.media) throw new Error(`${ref} is not downloaded: its page has a Download button.`);
    this.ref = ref;
    this.data = data;
    this.chapters = [];
    this.startedAt = null;
    this.pausedAt = null;
    audio.src = data.media;
    const episode = data.episode;
    const start = at !== undefined ? at : episode.played ? 0 : episode.position || 0;
    await new Promise((resolve, reject) => {
      audio.addEventListener("loadedmetadata", resolve, { once: true });
      audio.addEventListener("error", () => reject(new Error("the file cannot be played")), { once: true });
    });
    audio.currentTime = Math.min(start, audio.duration || start);
    audio.playbackRate = data.speed || 1;
    audio.defaultPlaybackRate = data.speed || 1;
    $("#player").hidden = false;
    const title = $("#now-title");
    title.textContent = episode.title;
    title.href = `/e/${ref}`;
    $("#now-podcast").textContent = episode.podcast || "";
    $("#seek").max = String(Math.floor(audio.duration || episode.seconds || 0));
    this.showSpeed();
    if (episode.chapters) {
      api(`/api/episodes/${ref}/chapters`).then(({ chapters }) => {
        if (this.ref === ref) {
          this.chapters = chapters;
          this.showChapter();
        }
      }).catch(() => {});
    }
    if ("mediaSession" in navigator) {
      navigator.mediaSession.metadata = new MediaMetadata({
        title: episode.title,
        artist: episode.podcast || "",
        album: episode.podcast || "",
        artwork: [{ src: `/api/artwork/${data.podcastNumber}` }],
      });
    }
  },

  /** Saves the place: every 15 s, on pause, on seek, on the end, and as the page goes. */
  save({ ended = false, beacon = false } = {}) {
    if (!this.ref) return Promise.resolve();
    const body = { seconds: ended ? audio.duration : audio.currentTime, ended };
    if (this.startedAt !== null && (audio.paused || ended || beacon)) {
      body.startedAt = this.startedAt;
      body.speed = audio.playbackRate;
      if (this.stretchClock) body.wall = (Date.now() - this.stretchClock) / 1000;
    }
    this.lastSave = Date.now();
    const address = `/api/episodes/${this.ref}/place`;
    if (beacon && navigator.sendBeacon) {
      navigator.sendBeacon(address, new Blob([JSON.stringify(body)], { type: "text/plain;charset=UTF-8" }));
      return Promise.resolve();
    }
    return post(address, body).catch((error) => toast(`Place not saved: ${error.message}`));
  },

  async bookmark(note = "") {
    if (!this.ref) return;
    try {
      const made = await post(`/api/episodes/${this.ref}/bookmarks`, { at: audio.currentTime, note });
      toast(`Bookmarked ${made.number} at ${clock(made.at)}`);
      const list = $("#bookmarks");
      if (list && location.pathname === `/e/${this.ref}`) list.append(bookmarkLine(made));
    } catch (error) {
      toast(error.message);
    }
  },

  async playQueue() {
    const { queue } = await api("/api/queue");
    this.queue = queue.map((item) => item.ref);
    if (this.queue.length > 0) await this.play(this.queue[0]);
  },

  async next() {
    if (!this.queue) return;
    // The queue is read again: the played one has left it.
    const { queue } = await api("/api/queue");
    this.queue = queue.map((item) => item.ref).filter((ref) => ref !== this.ref);
    if (this.queue.length === 0) {
      this.queue = null;
      toast("The queue is played through.");
      return;
    }
    await this.play(this.queue[0]);
    if (location.pathname === "/queue") render();
  },

  chapterIndex() {
    const now = audio.currentTime;
    let index = -1;
    this.chapters.forEach((chapter, i) => {
      if (chapter.start <= now + 0.25) index = i;
    });
    return index;
  },

  showChapter() {
    const index = this.chapterIndex();
    const chapter = this.chapters[index];
    $("#now-chapter").textContent = chapter ? chapter.title || `Chapter ${chapter.number}` : "";
    for (const line of document.querySelectorAll("#chapters .chapter")) {
      line.classList.toggle("current", chapter !== undefined && Number(line.dataset.start) === chapter.start);
    }
  },

  /** The transcript's current cue, highlighted and kept in view inside its box. */
  showCue() {
    const box = $("#cues");
    if (!box || location.pathname !== `/e/${this.ref}`) return;
    const now = audio.currentTime;
    let current = null;
    for (const cue of box.children) {
      if (cue.dataset.start !== "" && Number(cue.dataset.start) <= now + 0.25) current = cue;
    }
    const previous = box.querySelector(".cue.current");
    if (previous === current) return;
    if (previous) previous.classList.remove("current");
    if (current) {
      current.classList.add("current");
      box.scrollTop = current.offsetTop - box.offsetTop - box.clientHeight / 3;
    }
  },

  skipChapter(direction) {
    if (this.chapters.length === 0) return this.seekBy(direction > 0 ? 30 : -10);
    const index = this.chapterIndex();
    if (direction > 0) {
      const next = this.chapters[index + 1];
      if (next) audio.currentTime = next.start;
    } else {
      const chapter = this.chapters[index];
      // Within its first 3 s, the one before; else its start.
      const target = chapter && audio.currentTime - chapter.start > 3 ? chapter : this.chapters[Math.max(0, index - 1)];
      if (target) audio.currentTime = target.start;
    }
  },

  seekBy(seconds) {
    if (!this.ref) return;
    audio.currentTime = Math.max(0, Math.min(audio.duration || Infinity, audio.currentTime + seconds));
  },

  setSpeed(speed) {
    const rate = Math.round(Math.min(3, Math.max(0.5, speed)) * 10) / 10;
    audio.playbackRate = rate;
    audio.defaultPlaybackRate = rate;
    this.showSpeed();
  },

  showSpeed() {
    $("#speed").textContent = `${audio.playbackRate}×`;
  },

  toggle() {
    if (!this.ref) return;
    if (audio.paused) audio.play().catch((error) => toast(error.message));
    else audio.pause();
  },
};

audio.addEventListener("play", () => {
  // Back 5 s after a pause of more than 5 minutes.
  if (player.pausedAt && Date.now() - player.pausedAt > 5 * 60 * 1000) audio.currentTime = Math.max(0, audio.currentTime - 5);
  player.pausedAt = null;
  player.startedAt = audio.currentTime;
  player.stretchClock = Date.now();
  $("#toggle").textContent = "Ⅱ";
  $("#toggle").setAttribute("aria-label", "Pause");
  if ("mediaSession" in navigator) navigator.mediaSession.playbackState = "playing";
});

audio.addEventListener("pause", () => {
  $("#toggle").textContent = "▶";
  $("#toggle").setAttribute("aria-label", "Play");
  if ("mediaSession" in navigator) navigator.mediaSession.playbackState = "paused";
  if (audio.ended) return;
  player.pausedAt = Date.now();
  player.save();
  player.startedAt = null;
});

audio.addEventListener("timeupdate", () => {
  $("#time").textContent = clock(audio.currentTime);
  const seek = $("#seek");
  if (document.activeElement !== seek) seek.value = String(Math.floor(audio.currentTime));
  player.showChapter();
  player.showCue();
  if (!audio.paused && Date.now() - player.lastSave >= 15000) player.save();
  if ("mediaSession" in navigator && audio.duration) {
    navigator.mediaSession.setPositionState({ duration: audio.duration, position: Math.min(audio.currentTime, audio.duration), playbackRate: audio.playbackRate });
  }
});

audio.addEventListener("seeked", () => {
  player.save().then(() => {
    if (!audio.paused) player.startedAt = audio.currentTime;
  });
  if (!audio.paused) player.startedAt = audio.currentTime;
});

audio.addEventListener("ended", async () => {
  await player.save({ ended: true });
  player.startedAt = null;
  toast(`Played: ${player.data ? player.data.episode.title : ""}`);
  if (player.queue) await player.next();
});

audio.addEventListener("ratechange", () => player.showSpeed());

// The place as the page goes: hidden (a phone locks, a tab switches) or closed.
// Only while playing: a pause saved its place already, and a stale place sent
// as the page goes would undo one the terminal set since.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden" && player.ref && !audio.paused && !audio.ended) player.save({ beacon: true });
});
window.addEventListener("pagehide", () => {
  if (player.ref && !audio.paused && !audio.ended) player.save({ beacon: true });
});

$("#toggle").addEventListener("click", () => player.toggle());
$("#back").addEventListener("click", () => player.seekBy(-10));
$("#forward").addEventListener("click", () => player.seekBy(30));
$("#slower").addEventListener("click", () => player.setSpeed(audio.playbackRate - 0.1));
$("#faster").addEventListener("click", () => player.setSpeed(audio.playbackRate + 0.1));
$("#mark").addEventListener("click", () => player.bookmark());
$("#seek").addEventListener("change", (event) => {
  audio.currentTime = Number(event.target.value);
});

document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || event.ctrlKey || event.metaKey || event.altKey) return;
  const keys = {
    " ": () => player.toggle(),
    ArrowLeft: () => player.seekBy(-10),
    ArrowRight: () => player.seekBy(30),
    "[": () => player.setSpeed(audio.playbackRate - 0.1),
    "]": () => player.setSpeed(audio.playbackRate + 0.1),
    b: () => player.bookmark(),
  };
  const action = keys[event.key];
  if (!action || !player.ref) return;
  // A button focused by a click must not also take the space.
  event.preventDefault();
  action();
});

if ("mediaSession" in navigator) {
  const handlers = {
    play: () => audio.play(),
    pause: () => audio.pause(),
    stop: () => audio.pause(),
    seekbackward: (details) => player.seekBy(-(details.seekOffset || 10)),
    seekforward: (details) => player.seekBy(details.seekOffset || 30),
    seekto: (details) => {
      audio.currentTime = details.seekTime;
    },
    previoustrack: () => player.skipChapter(-1),
    nexttrack: () => player.skipChapter(1),
  };
  for (const [action, handler] of Object.entries(handlers)) {
    try {
      navigator.mediaSession.setActionHandler(action, handler);
    } catch {
      // An action this browser does not know.
    }
  }
}

// For the end-to-end tests and the curious: the player, from the console.
window.feedsh = { player, audio, go };

render();
