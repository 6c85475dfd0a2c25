import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { Providers } from "../client/providers.tsx";
import { SignOutButton } from "../client/sign-out.tsx";
import { getViewer } from "../server/viewer.ts";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "sfbench: stateful serverless function benchmark", template: "%s · sfbench" },
  description: "A public benchmark and leaderboard for stateful serverless function systems",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const viewer = await getViewer();
  return (
    <html lang="en">
      <body>
        <Providers>
          <header className="top">
            <nav>
              <Link href="/" className="brand">
                sfbench
              </Link>
              <Link href="/">Leaderboard</Link>
              <Link href="/compare">Compare</Link>
              <Link href="/submit">Submit</Link>
              <Link href="/docs">Docs</Link>
            </nav>
            <nav className="account">
              {viewer ? (
                <>
                  <span className="muted" data-testid="viewer">
                    {viewer.email}
                  </span>
                  {viewer.emailVerifiedAt ? null : (
                    <span className="badge unverified" data-testid="viewer-unverified" title="ratings count once the address is verified">
                      not verified
                    </span>
                  )}
                  <Link href="/tokens">API tokens</Link>
                  <SignOutButton />
                </>
              ) : (
                <>
                  <Link href="/signin">Sign in</Link>
                  <Link href="/signup">Sign up</Link>
                </>
              )}
            </nav>
          </header>
          <main>{children}</main>
          <footer className="muted">
            Every number here comes from a stored run. <Link href="/docs">How sfbench measures</Link>.
          </footer>
        </Providers>
      </body>
    </html>
  );
}
