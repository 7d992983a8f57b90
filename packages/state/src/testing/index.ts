export { createTestDatabase, testServerAdminUrl, withDatabase, TEMPLATE_DATABASE, type TestDatabase } from "./test-database.ts";
