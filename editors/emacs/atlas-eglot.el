;;; atlas-eglot.el --- Atlas language server (atlas-ls) through Eglot  -*- lexical-binding: t -*-

;; Hover docs, go-to-doc, workspace symbols, code actions and deprecation warnings for Collibra
;; APIs, served offline by atlas-ls.  Needs Eglot 1.9 or later: built into Emacs 29; on Emacs 28
;; install it with M-x package-install RET eglot, or the Debian package elpa-eglot.
;;
;;   (setq atlas-eglot-bundle "~/atlas/bundles/collibra")   ; optional, before loading
;;   (load "/path/to/atlas/editors/emacs/atlas-eglot.el")
;;
;; then M-x eglot in a buffer of one of `atlas-eglot-modes', or (add-hook 'json-mode-hook
;; #'eglot-ensure).  Eglot runs one server per major mode and project, so registering atlas-ls for
;; python-mode would replace pylsp there: the default modes are those where the docs matter more
;; than a code server.  Add more with `atlas-eglot-modes' and call `atlas-eglot-register'.

;;; Code:

(require 'cl-lib)
(require 'eglot)

(defgroup atlas-eglot nil
  "The Atlas language server through Eglot."
  :group 'eglot)

(defcustom atlas-eglot-command '("atlas-ls")
  "The atlas-ls command line."
  :type '(repeat string))

(defcustom atlas-eglot-bundle nil
  "Bundle directory, or a list of them; nil lets atlas-ls pick its default."
  :type '(choice (const :tag "atlas-ls default" nil) directory (repeat directory)))

(defcustom atlas-eglot-max-results 50
  "Most workspace symbols one query returns (1-1000)."
  :type 'integer)

(defcustom atlas-eglot-diagnostics t
  "Whether atlas-ls shows diagnostics at all: deprecated terms and API checks."
  :type 'boolean)

(defcustom atlas-eglot-api-checks t
  "Whether atlas-ls checks API calls in client code against the specs (unknown endpoints,
methods, parameters and values, missing required keys, deprecated operations)."
  :type 'boolean)

(defcustom atlas-eglot-modes
  '(json-mode js-json-mode json-ts-mode yaml-mode yaml-ts-mode sh-mode bash-ts-mode
    markdown-mode gfm-mode graphql-mode groovy-mode)
  "Major modes whose buffers atlas-ls manages."
  :type '(repeat symbol))

(defun atlas-eglot-initialization-options (&optional _server)
  "The `atlas' settings section sent as initializationOptions."
  (let ((bundle (cond ((null atlas-eglot-bundle) nil)
                      ((listp atlas-eglot-bundle) atlas-eglot-bundle)
                      (t (list atlas-eglot-bundle)))))
    (list :atlas
          (append
           (when bundle
             (list :bundle (vconcat (mapcar #'expand-file-name bundle))))
           (list :workspaceSymbols (list :maxResults atlas-eglot-max-results)
                 :diagnostics (list :enabled (if atlas-eglot-diagnostics t :json-false)
                                    :api (if atlas-eglot-api-checks t :json-false)))))))

(defun atlas-eglot--entry-p (entry)
  (let ((contact (cdr-safe entry)))
    (and (listp contact) (memq #'atlas-eglot-initialization-options contact))))

(defun atlas-eglot-register ()
  "Register atlas-ls in `eglot-server-programs' (again, after changing the options)."
  (interactive)
  (setq eglot-server-programs (cl-remove-if #'atlas-eglot--entry-p eglot-server-programs))
  (add-to-list 'eglot-server-programs
               (cons atlas-eglot-modes
                     (append atlas-eglot-command
                             (list :initializationOptions
                                   #'atlas-eglot-initialization-options)))))

(atlas-eglot-register)

(provide 'atlas-eglot)
;;; atlas-eglot.el ends here
