// SkyHop: a small flight-search app whose WebMCP tools really drive the page.
// The same code runs with Chromium's native WebMCP and with the WebMCP Sidecar polyfill.
"use strict";

const AIRLINES = ["Air China", "China Eastern", "Hainan", "Spring", "Juneyao"];

/** Deterministic fake inventory for a route and date, so runs are reproducible. */
function inventory(from, to, date) {
  let seed = 0;
  for (const ch of from + to + date) seed = (seed * 31 + ch.charCodeAt(0)) >>> 0;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const flights = [];
  for (let i = 0; i < 8; i++) {
    const depMin = 6 * 60 + Math.floor(rand() * 15 * 60);
    const stops = rand() < 0.5 ? 0 : rand() < 0.7 ? 1 : 2;
    const duration = 120 + stops * 90 + Math.floor(rand() * 60);
    const airline = AIRLINES[Math.floor(rand() * AIRLINES.length)];
    flights.push({
      id: `${airline.slice(0, 2).toUpperCase()}${100 + Math.floor(rand() * 900)}`,
      airline, from, to, date,
      departure: `${String(Math.floor(depMin / 60)).padStart(2, "0")}:${String(depMin % 60).padStart(2, "0")}`,
      durationMinutes: duration,
      stops,
      price: 400 + Math.floor(rand() * 16) * 50 - stops * 60,
    });
  }
  return flights;
}

const state = { query: null, all: [], filters: { maxPrice: null, maxStops: null, sortBy: "price" }, booking: null };
const $ = (id) => document.getElementById(id);

function visible() {
  const { maxPrice, maxStops, sortBy } = state.filters;
  return state.all
    .filter((f) => maxPrice == null || f.price <= maxPrice)
    .filter((f) => maxStops == null || f.stops <= maxStops)
    .sort((a, b) => sortBy === "departure" ? a.departure.localeCompare(b.departure)
      : sortBy === "duration" ? a.durationMinutes - b.durationMinutes : a.price - b.price);
}

function render() {
  const list = visible();
  const ol = $("results");
  ol.replaceChildren(...list.map((f) => {
    const li = document.createElement("li");
    li.dataset.flightId = f.id;
    li.innerHTML = `<b>${f.id}</b> ${f.airline} · ${f.from}→${f.to} ${f.departure} · ${f.stops === 0 ? "nonstop" : f.stops + " stop" + (f.stops > 1 ? "s" : "")} · ${Math.round(f.durationMinutes / 6) / 10} h · <span class="price">¥${f.price}</span>`;
    const btn = document.createElement("button");
    btn.textContent = "Book";
    btn.onclick = () => book({ flightId: f.id, passengerName: prompt("Passenger name?") || "Guest" });
    li.append(" ", btn);
    return li;
  }));
  $("status").textContent = state.query
    ? `${list.length} of ${state.all.length} flights ${state.query.from}→${state.query.to} on ${state.query.date}`
    : "Search for a flight.";
  $("maxPrice").value = state.filters.maxPrice ?? "";
  $("maxStops").value = state.filters.maxStops ?? "";
  $("sortBy").value = state.filters.sortBy;
  const b = $("booking");
  b.hidden = !state.booking;
  if (state.booking) b.textContent = `Booked ${state.booking.flightId} for ${state.booking.passengerName}: confirmation ${state.booking.confirmation}.`;
}

function search({ from, to, date, passengers = 1 }) {
  from = String(from).toUpperCase(); to = String(to).toUpperCase();
  $("from").value = from; $("to").value = to; $("date").value = date; $("passengers").value = passengers;
  state.query = { from, to, date, passengers };
  state.all = inventory(from, to, date);
  state.booking = null;
  render();
  return { route: `${from}-${to}`, date, count: visible().length, flights: visible() };
}

function setFilters({ maxPrice, maxStops, sortBy }) {
  if (maxPrice !== undefined) state.filters.maxPrice = maxPrice;
  if (maxStops !== undefined) state.filters.maxStops = maxStops;
  if (sortBy !== undefined) state.filters.sortBy = sortBy;
  render();
  return { filters: state.filters, showing: visible().length };
}

function listFlights() {
  // What the page shows right now, read back from the DOM.
  return {
    status: $("status").textContent,
    flights: [...$("results").children].map((li) => li.textContent.replace(/\s*Book$/, "").trim()),
  };
}

function book({ flightId, passengerName }) {
  const f = state.all.find((x) => x.id === flightId);
  if (!f) throw new Error(`No flight ${flightId} in the current results. Search first.`);
  state.booking = { flightId, passengerName, confirmation: "SKY" + Math.abs(hash(flightId + passengerName)).toString(36).toUpperCase().slice(0, 6) };
  render();
  return state.booking;
}
function hash(s) { let h = 0; for (const c of s) h = (h * 33 + c.charCodeAt(0)) | 0; return h; }

$("search").addEventListener("submit", (e) => {
  e.preventDefault();
  search({ from: $("from").value, to: $("to").value, date: $("date").value, passengers: +$("passengers").value });
});
$("maxPrice").onchange = () => setFilters({ maxPrice: $("maxPrice").value ? +$("maxPrice").value : null });
$("maxStops").onchange = () => setFilters({ maxStops: $("maxStops").value ? +$("maxStops").value : null });
$("sortBy").onchange = () => setFilters({ sortBy: $("sortBy").value });

const IATA = { type: "string", pattern: "^[A-Za-z]{3}$", description: "IATA airport code, e.g. PEK" };
const TOOLS = [
  {
    name: "searchFlights",
    title: "Search flights",
    description: "Search one-way flights between two airports on a date. Shows the results on the page and returns them.",
    inputSchema: {
      type: "object",
      properties: {
        from: IATA, to: IATA,
        date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "YYYY-MM-DD" },
        passengers: { type: "integer", minimum: 1, maximum: 9 },
      },
      required: ["from", "to", "date"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    execute: search,
  },
  {
    name: "setFilters",
    title: "Filter and sort results",
    description: "Filter the shown flights by maximum price and stops, and choose the sort order.",
    inputSchema: {
      type: "object",
      properties: {
        maxPrice: { type: ["number", "null"], minimum: 0 },
        maxStops: { type: ["integer", "null"], minimum: 0, maximum: 2 },
        sortBy: { type: "string", enum: ["price", "departure", "duration"] },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    execute: setFilters,
  },
  {
    name: "listFlights",
    title: "List shown flights",
    description: "Read the flights the page currently shows, as the user sees them.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
    execute: listFlights,
  },
  {
    name: "bookFlight",
    title: "Book a flight",
    description: "Book one of the shown flights for a passenger.",
    inputSchema: {
      type: "object",
      properties: { flightId: { type: "string" }, passengerName: { type: "string", minLength: 1 } },
      required: ["flightId", "passengerName"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false },
    execute: book,
  },
];

if (document.modelContext) {
  for (const tool of TOOLS) document.modelContext.registerTool(tool);
} else {
  $("status").textContent = "This browser has no WebMCP (document.modelContext): install WebMCP Sidecar.";
}
render();
