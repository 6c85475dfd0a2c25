/** A version's LOC on the system page: sfbench's count as the figure, the submitter's only as declared. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { VersionLoc } from "../src/components/version-loc.tsx";

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, " ");

describe("a target version's lines of code", () => {
  it("shows sfbench's count, and the submitter's figure apart as declared", () => {
    const t = text(
      renderToStaticMarkup(
        <VersionLoc loc={{ typescript: { app: 843, gateway: 383 } }} declaredLoc={{ typescript: { app: 10, gateway: 2 }, go: { app: 5, gateway: 0 } }} />,
      ),
    );
    expect(t).toContain("Lines of code, counted by sfbench");
    expect(t).toMatch(/typescript 843 383/);
    expect(t).toContain("Declared by the submitter (not counted by sfbench): 15 app + 2 gateway lines.");
  });

  it("says a version not yet run is not counted, whatever it declared", () => {
    const t = text(renderToStaticMarkup(<VersionLoc loc={null} declaredLoc={{ typescript: { app: 812, gateway: 140 } }} />));
    expect(t).toContain("LOC not counted yet");
    expect(t).not.toContain("counted by sfbench (cloc");
    expect(t).toContain("812 app + 140 gateway");
  });
});
