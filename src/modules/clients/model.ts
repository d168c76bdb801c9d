import { t } from "elysia";

export const CompanyParams = t.Object({ companyId: t.String({ minLength: 1, maxLength: 200 }) });
