/**
 * What an experiment's analysis reads of the outcome ledger. The ledger is the applications table, owned by
 * modules/applications, which sits downstream of this module (it assigns arms through it), so the counts arrive
 * through this port: deps.ts wires applications/experiment-outcomes.ts into it.
 */
import type { Db } from "../../db/client";
import type { ExperimentObjective } from "../../db/enums";
import type { ArmCounts } from "./stats";

/** Sent proposals of one arm with one edited_by_hand value, and how far they got (a later stage implies the earlier). */
export interface ArmOutcomeRow {
  armId: string;
  editedByHand: boolean | null;
  sent: number;
  replied: number;
  interviews: number;
  hires: number;
  /** Of the sent: those whose driver said what submitting cost, their replies and the Connects they spent (boost included). */
  withConnects: number;
  repliedWithConnects: number;
  connectsSpent: number;
}

export interface ExperimentOutcomes {
  perArm(db: Db, accountId: string, experimentId: string): Promise<ArmOutcomeRow[]>;
}

export interface ArmTally extends ArmCounts {
  /** Sent proposals counted (not hand-edited). */
  sent: number;
  excludedEdited: number;
}

/**
 * Each arm's successes and trials for the objective. Proposals whose letter was edited by hand are left out (they test
 * the freelancer's edit, not the arm) and counted apart. replies_per_connect divides replies by the Connects spent, over
 * the proposals whose cost is known, so an unknown cost never inflates the rate.
 */
export function tally(arms: readonly { id: string }[], rows: readonly ArmOutcomeRow[], objective: ExperimentObjective): ArmTally[] {
  return arms.map(({ id }) => {
    const mine = rows.filter((r) => r.armId === id);
    const kept = mine.filter((r) => r.editedByHand !== true);
    const sum = (f: (r: ArmOutcomeRow) => number) => kept.reduce((s, r) => s + f(r), 0);
    const excludedEdited = mine.filter((r) => r.editedByHand === true).reduce((s, r) => s + r.sent, 0);
    const sent = sum((r) => r.sent);
    if (objective === "replies_per_connect") {
      const successes = sum((r) => r.repliedWithConnects);
      return {
        id,
        sent,
        excludedEdited,
        successes,
        n: Math.max(
          sum((r) => r.connectsSpent),
          successes,
        ),
      };
    }
    const successes = sum((r) => (objective === "replies" ? r.replied : objective === "interviews" ? r.interviews : r.hires));
    return { id, sent, excludedEdited, successes, n: sent };
  });
}
