import { listToolGroups } from "./api";
import { startApp } from "./app";

const root = document.getElementById("app");
if (root) void startApp(root, listToolGroups);
