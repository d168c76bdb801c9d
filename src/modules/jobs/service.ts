import type { NormalizedJob } from "./normalize";

/** "40–60 USD/hour", "1500 USD fixed" or null: how writers and scorers show a budget. */
export function budgetText(j: Pick<NormalizedJob, "jobType" | "hourlyMin" | "hourlyMax" | "fixedBudget" | "currency">): string | null {
  const cur = j.currency ?? "USD";
  if (j.jobType === "FIXED" && j.fixedBudget !== null) return `${j.fixedBudget} ${cur} fixed`;
  if (j.jobType === "HOURLY" && (j.hourlyMin !== null || j.hourlyMax !== null)) {
    return `${[j.hourlyMin, j.hourlyMax].filter((v) => v !== null).join("–")} ${cur}/hour`;
  }
  return null;
}
