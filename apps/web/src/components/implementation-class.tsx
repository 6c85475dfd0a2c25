/** A row's implementation class (idiomatic or tuned) and its declared guarantees, as the leaderboard, compare and system pages show them. */
import { fmtGuarantees, type ImplementationClass } from "../shared/implementation.ts";

const CLASS_TITLE = {
  idiomatic: "idiomatic: the system used the way its documentation teaches (target.json implementation)",
  tuned: "tuned: optimised for this benchmark (target.json implementation); hidden on the leaderboard and compare unless asked for",
} as const;

export function ImplementationBadge({ cls }: { cls: ImplementationClass }) {
  return (
    <>
      <span className={`badge ${cls.implementation}`} data-implementation={cls.implementation} title={CLASS_TITLE[cls.implementation]}>
        {cls.implementation}
      </span>
      <br />
      <span className="muted" data-guarantees title="durability · consistency/isolation · messaging between functions, as declared in target.json">
        {fmtGuarantees(cls.guarantees)}
      </span>
    </>
  );
}
