package helpdeskexample;

import com.pulumi.Config;
import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.resources.CustomResourceOptions;
import com.github.pulumi_helpdesk.helpdesk.Provider;
import com.github.pulumi_helpdesk.helpdesk.ProviderArgs;
import com.github.pulumi_helpdesk.helpdesk.Webhook;
import com.github.pulumi_helpdesk.helpdesk.WebhookArgs;
import com.github.pulumi_helpdesk.helpdesk.enums.WebhookEvent;

/**
 * Help-desk webhooks on two help desks, through the native provider plugin pulumi-resource-helpdesk.
 *
 * <ul>
 *   <li>The default provider reads the stack's {@code helpdesk:*} config, as
 *       {@code pulumi-helpdesk login --stack <stack>} writes it.</li>
 *   <li>The explicit provider {@code euHelpdesk} takes its settings from the stack's {@code eu:*} config, as
 *       {@code pulumi-helpdesk login --stack <stack> --namespace eu} writes it; the secret ones stay secrets.</li>
 * </ul>
 */
public final class App {
    private App() {
    }

    /** Runs the program: the Java language host starts it with {@code mvn compile exec:java}. */
    public static void main(String[] args) {
        Pulumi.run(App::program);
    }

    /** Declares one webhook on each help desk and exports their ids and the second one's state. */
    static void program(Context ctx) {
        var receivers = ctx.config().get("receiverBaseUrl").orElse("https://hooks.example.test");

        // A webhook of the help desk that `pulumi-helpdesk login` signed in to (the default provider).
        var ticketsOpened = new Webhook("ticketsOpened", WebhookArgs.builder()
            .event(WebhookEvent.TicketOpened)
            .url(receivers + "/tickets/opened")
            .build());

        // The second help desk: an explicit provider with the `eu:*` settings (all of them written by the login).
        Config eu = ctx.config("eu");
        var hint = "sign in to the second help desk with `pulumi-helpdesk login --stack " + ctx.stackName() + " --namespace eu`";
        if (eu.get("baseUrl").isEmpty()) {
            throw new IllegalStateException("missing config eu:baseUrl: " + hint);
        }
        var euHelpdesk = new Provider("euHelpdesk", ProviderArgs.builder()
            .baseUrl(eu.require("baseUrl"))
            .clientId(eu.require("clientId"))
            .tokenExpiresAt(eu.require("tokenExpiresAt"))
            .accessToken(eu.requireSecret("accessToken"))
            .refreshToken(eu.requireSecret("refreshToken"))
            .clientSecret(eu.requireSecret("clientSecret"))
            .build());

        var euCustomerReplied = new Webhook("euCustomerReplied", WebhookArgs.builder()
                .event(WebhookEvent.CustomerReplied)
                .url(receivers + "/eu/replies")
                .build(),
            CustomResourceOptions.builder().provider(euHelpdesk).build());

        ctx.export("ticketsOpenedId", ticketsOpened.id());
        ctx.export("euCustomerRepliedId", euCustomerReplied.id());
        ctx.export("euCustomerRepliedState", euCustomerReplied.state());
    }
}
