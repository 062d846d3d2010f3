import { PDFDocument, rgb, StandardFonts } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { ExtractionError, extractHtml, extractPdf } from "../../src/knowledge/extract.js";

const limits = { maxChars: 5_000_000, maxPages: 2_000, maxDecompressedBytes: 256 * 1024 * 1024 };

const boilerplateHeader = `
  <header class="site-header">
    <a href="/"><img src="/logo.png" alt="Fixture Bank"></a>
    <nav><ul>
      <li><a href="/accounts">Personal accounts</a></li>
      <li><a href="/business#top">Business banking</a></li>
      <li><a href="mailto:help@fixture.bank">Email us</a></li>
      <li><a href="javascript:void(0)">Menu</a></li>
    </ul></nav>
  </header>`;
const boilerplateFooter = `
  <footer><p>Fixture Bank plc is authorised by the Prudential Regulation Authority.</p>
    <a href="/privacy">Privacy notice</a> <a href="https://twitter.example.com/fixturebank">Follow us</a></footer>
  <script>window.analytics = "tracking snippet";</script>`;

const paragraph = (topic: string) =>
  `<p>Our ${topic} is designed for everyday banking. It comes with a contactless debit card, access to mobile and online ` +
  `banking, and alerts when your balance runs low. There is no monthly fee and you can switch to us in seven working days.</p>`;

const articlePage = `<!doctype html><html><head><title>Current accounts | Fixture Bank</title></head><body>
  ${boilerplateHeader}
  <main><article>
    <h1>Current accounts</h1>
    ${paragraph("Classic current account")}
    ${paragraph("Premier current account")}
    <h2>Overdrafts</h2>
    ${paragraph("arranged overdraft")}
    <table><tr><th>Service</th><th>Fee</th></tr><tr><td>Replacement card</td><td>£5</td></tr></table>
    <p>Read the <a href="../terms/current-accounts.pdf">terms and conditions</a>.</p>
  </article></main>
  ${boilerplateFooter}
</body></html>`;

describe("extractHtml", () => {
  const page = extractHtml(articlePage, "https://www.fixture.bank/personal/accounts.html", limits);

  it("keeps the main text and drops navigation, footer and scripts", () => {
    expect(page.title).toContain("Current accounts");
    expect(page.text).toContain("Our Classic current account is designed for everyday banking.");
    expect(page.text).toContain("Replacement card | £5");
    for (const boilerplate of ["Personal accounts", "Business banking", "Prudential Regulation", "Privacy notice", "tracking"]) {
      expect(page.text).not.toContain(boilerplate);
    }
  });

  it("puts headings on their own '# ' lines, for the chunker to split on", () => {
    const lines = page.text.split("\n");
    expect(lines).toContain("# Current accounts");
    expect(lines).toContain("# Overdrafts");
    expect(page.text).toMatch(/\n\n# Overdrafts\n\n/);
  });

  it("lists every http(s) link once, absolute and without its fragment", () => {
    expect(page.links).toEqual(
      expect.arrayContaining([
        "https://www.fixture.bank/accounts",
        "https://www.fixture.bank/business",
        "https://www.fixture.bank/privacy",
        "https://www.fixture.bank/terms/current-accounts.pdf",
        "https://twitter.example.com/fixturebank",
      ]),
    );
    expect(page.links.every((link) => /^https?:\/\/[^#]+$/.test(link))).toBe(true);
    expect(new Set(page.links).size).toBe(page.links.length);
  });

  it("resolves links against <base href>", () => {
    const html = `<html><head><base href="/en/help/"></head><body><a href="faq">FAQ</a><a href="/contact">Contact</a></body></html>`;
    expect(extractHtml(html, "https://fixture.bank/index.html", limits).links).toEqual([
      "https://fixture.bank/en/help/faq",
      "https://fixture.bank/contact",
    ]);
  });

  it("falls back to the body without boilerplate when Readability finds no article", () => {
    const html = `<html><head><title>Branch hours</title></head><body>${boilerplateHeader}
      <div><h2>Opening hours</h2><p>Monday to Friday, 9am to 5pm.</p></div>${boilerplateFooter}</body></html>`;
    expect(extractHtml(html, "https://fixture.bank/hours", limits)).toMatchObject({
      title: "Branch hours",
      text: "# Opening hours\n\nMonday to Friday, 9am to 5pm.",
    });
  });

  it("copes with an empty document", () => {
    expect(extractHtml("", "https://fixture.bank/empty", limits)).toEqual({
      title: "https://fixture.bank/empty",
      text: "",
      links: [],
    });
  });
});

async function pdfWithPages(texts: string[], title?: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  if (title) pdf.setTitle(title);
  for (const text of texts) {
    const page = pdf.addPage();
    text.split("\n").forEach((line, i) => {
      page.drawText(line, { x: 50, y: 750 - i * 16, size: 12, font });
    });
  }
  return pdf.save();
}

describe("extractPdf", () => {
  it("returns the text of each page with its page number", async () => {
    const bytes = await pdfWithPages(
      ["Tariff of charges\nUnarranged overdraft: 0 GBP", "Page two\nInternational payments cost 15 GBP each."],
      "Tariff of charges 2025",
    );
    expect(await extractPdf(bytes, limits)).toEqual({
      title: "Tariff of charges 2025",
      pages: [
        { page: 1, text: "Tariff of charges\nUnarranged overdraft: 0 GBP" },
        { page: 2, text: "Page two\nInternational payments cost 15 GBP each." },
      ],
    });
  });

  it("has no title when the PDF declares none", async () => {
    expect((await extractPdf(await pdfWithPages(["Untitled leaflet"]), limits)).title).toBeNull();
  });

  it("keeps the caller's bytes usable", async () => {
    const bytes = await pdfWithPages(["Read twice"]);
    await extractPdf(bytes, limits);
    expect((await extractPdf(bytes, limits)).pages).toEqual([{ page: 1, text: "Read twice" }]);
  });

  it("refuses a PDF with no text layer, such as a scanned document", async () => {
    const pdf = await PDFDocument.create();
    pdf.addPage().drawRectangle({ x: 50, y: 50, width: 400, height: 600, color: rgb(0.2, 0.2, 0.2) });
    const scanned = await pdf.save();
    await expect(extractPdf(scanned, limits)).rejects.toThrow(ExtractionError);
    await expect(extractPdf(scanned, limits)).rejects.toThrow(/no extractable text — it may be a scanned document/);
  });

  it("refuses bytes that are not a PDF", async () => {
    const notPdf = new TextEncoder().encode("<html><body>Not a PDF</body></html>");
    await expect(extractPdf(notPdf, limits)).rejects.toThrow(ExtractionError);
    await expect(extractPdf(notPdf, limits)).rejects.toThrow(/is not a PDF/);
  });

  it("refuses a damaged PDF with a readable error", async () => {
    const damaged = new TextEncoder().encode("%PDF-1.7\n1 0 obj << /Type /Catalog >>\n%%EOF");
    await expect(extractPdf(damaged, limits)).rejects.toThrow(ExtractionError);
  });
});
