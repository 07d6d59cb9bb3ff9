import { createContext, useContext } from "react";

/** The CSP nonce of this response, set by the server entry; empty in the browser. */
const NonceContext = createContext<string>("");
export const NonceProvider = NonceContext.Provider;
export const useNonce = () => useContext(NonceContext);
