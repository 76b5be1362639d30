// Manage help-desk webhooks as code (pulumi-helpdesk).
package helpdesk
