import Link from "next/link";

const PAGES = [
  ["/docs", "Specification"],
  ["/docs/targets", "Adding a target"],
  ["/docs/conformance", "Conformance checks"],
  ["/docs/cluster", "Running on a cluster"],
  ["/docs/api", "OpenAPI"],
] as const;

export function DocsNav({ current }: { current: string }) {
  return (
    <nav className="subnav">
      {PAGES.map(([href, label]) =>
        href === current ? (
          <strong key={href}>{label}</strong>
        ) : (
          <Link key={href} href={href}>
            {label}
          </Link>
        ),
      )}
    </nav>
  );
}
