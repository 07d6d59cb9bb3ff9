// Kept for existing server imports; the implementation is shared with the admin's picker.
export { sniffImageType, type SniffedImageType } from "./sniff-image-type";
