import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "~/components/ui/use-toast";
import type { GalleryImage, GalleryType } from "~/galleries/gallery";
import { apiRequest } from "~/lib/api-client";
import { failureToast, galleryKey, invalidateGalleries } from "../query-client";

/** Spec §8: the gallery toasts, word for word. */
export const GALLERY_TOASTS = {
  uploaded: { title: "Success", description: "Image uploaded successfully" },
  deleted: { title: "Success", description: "Image deleted successfully" },
  captioned: { title: "Success", description: "Caption updated successfully" },
  reordered: { title: "Success", description: "Gallery order updated" },
  uploadFailed: { title: "Upload failed", description: "Failed to upload image" },
  deleteFailed: { title: "Delete failed", description: "Failed to delete image" },
  captionFailed: { title: "Update failed", description: "Failed to update caption" },
  reorderFailed: { title: "Reorder failed", description: "Failed to reorder images" },
} as const;

export const DELETE_CONFIRMATION = "Are you sure you want to delete this image?";

export function useDeleteImage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest("DELETE", `/api/admin/gallery-images/${encodeURIComponent(id)}`),
    onSuccess: async () => {
      toast({ ...GALLERY_TOASTS.deleted });
      await invalidateGalleries(queryClient);
    },
    onError: failureToast(GALLERY_TOASTS.deleteFailed),
  });
}

export function useUpdateCaption() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, caption }: { id: string; caption: string }) =>
      apiRequest("PATCH", `/api/admin/gallery-images/${encodeURIComponent(id)}`, { caption }),
    onSuccess: async () => {
      toast({ ...GALLERY_TOASTS.captioned });
      await invalidateGalleries(queryClient);
    },
    onError: failureToast(GALLERY_TOASTS.captionFailed),
  });
}

/** Reorders optimistically; a failure puts the old order back. */
export function useReorderImages(galleryType: GalleryType) {
  const queryClient = useQueryClient();
  const queryKey = galleryKey(galleryType);
  return useMutation({
    mutationFn: (images: GalleryImage[]) =>
      apiRequest("PUT", "/api/admin/gallery-images/reorder", {
        galleryType,
        imageIds: images.map((image) => image.id),
      }),
    onMutate: async (images) => {
      await queryClient.cancelQueries({ queryKey });
      const previous = queryClient.getQueryData<GalleryImage[]>(queryKey);
      queryClient.setQueryData<GalleryImage[]>(queryKey, images);
      return { previous };
    },
    onError: (error, _images, context) => {
      if (context?.previous) queryClient.setQueryData(queryKey, context.previous);
      failureToast(GALLERY_TOASTS.reorderFailed)(error);
    },
    onSuccess: async () => {
      toast({ ...GALLERY_TOASTS.reordered });
      await invalidateGalleries(queryClient);
    },
  });
}
